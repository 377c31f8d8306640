"""Word lists the instruction grammar draws from: synonyms for every block, item, achievement,
verb and spatial word, plus politeness, pacing and purpose phrases.

Each list's **last** entry is held out of training phrasings (``held_out``): it appears only in the
``test_paraphrased`` split, together with held-out sentence frames.
"""

from __future__ import annotations

BLOCKS = {
    "stone": ["stone", "rock", "cobblestone", "stone block", "block of stone", "slab of rock", "chunk of granite"],
    "crafting_table": ["crafting table", "workbench", "work table", "crafting bench", "crafting station", "carpentry bench"],
    "furnace": ["furnace", "oven", "smelter", "forge", "kiln"],
    "plant": ["sapling", "seedling", "young plant", "sprout", "shoot"],
    "grass": ["grass", "grassy patch", "meadow", "lawn", "turf"],
    "water": ["water", "pond", "pool", "lake", "stream", "creek"],
    "tree": ["tree", "oak", "tree trunk", "trunk", "timber tree"],
    "sand": ["sand", "sandy patch", "beach", "dune", "sandbank"],
    "path": ["path", "trail", "walkway", "footpath", "track"],
    "coal": ["coal", "coal seam", "coal deposit", "vein of coal", "coal ore"],
    "iron": ["iron", "iron ore", "iron deposit", "vein of iron", "lode of iron"],
    "diamond": ["diamond", "diamond ore", "gemstone", "precious gem", "jewel"],
    "lava": ["lava", "magma", "molten rock", "lava pool", "fiery pit"],
    "wood": ["wood block", "wooden block", "plank block", "log block", "timber block"],
    "ripe_plant": ["ripe plant", "ripe crop", "mature plant", "harvestable plant", "ripened crop"],
    "sapphire": ["sapphire", "blue gem", "sapphire ore", "sapphire crystal", "azure gem"],
    "ruby": ["ruby", "red gem", "ruby ore", "ruby crystal", "crimson gem"],
    "chest": ["chest", "treasure chest", "coffer", "strongbox", "trunk of loot"],
    "fountain": ["fountain", "spring", "well", "water fountain", "wellspring"],
    "fire_grass": ["fire grass", "burning grass", "scorched grass", "ember grass", "flaming turf"],
    "ice_grass": ["ice grass", "frozen grass", "frosty grass", "icy turf", "rimed grass"],
    "gravel": ["gravel", "shingle", "loose gravel", "gravel bed", "pebbles"],
    "fire_tree": ["fire tree", "burning tree", "flaming tree", "ember tree", "blazing tree"],
    "ice_shrub": ["ice shrub", "frozen bush", "frosty shrub", "icy bush", "rimed shrub"],
    "enchantment_table_fire": ["fire enchantment table", "fire altar", "flame altar", "altar of fire", "ember shrine"],
    "enchantment_table_ice": ["ice enchantment table", "ice altar", "frost altar", "altar of ice", "frozen shrine"],
    "wall": ["wall", "dungeon wall", "stone wall", "rampart", "bulwark"],
    "wall_moss": ["mossy wall", "moss wall", "overgrown wall", "lichen wall", "green wall"],
    "stalagmite": ["stalagmite", "rock spire", "cave spike", "dripstone", "cave pillar"],
    "grave": ["grave", "tomb", "burial mound", "headstone", "gravestone"],
}
PLURALS = {
    "stone": ["stones", "rocks", "cobblestones", "stone blocks", "blocks of stone", "slabs of rock", "chunks of granite"],
    "crafting_table": ["crafting tables", "workbenches", "work tables", "crafting benches", "crafting stations", "carpentry benches"],
    "furnace": ["furnaces", "ovens", "smelters", "forges", "kilns"],
    "plant": ["saplings", "seedlings", "young plants", "sprouts", "shoots"],
}
ITEMS = {  # mass nouns, counted with UNITS ("three pieces of timber")
    "wood": ["wood", "timber", "lumber", "firewood", "logwood"],
    "stone": ["stone", "rock", "cobblestone", "rubble", "granite"],
    "coal": ["coal", "charcoal", "black coal", "coal ore", "anthracite"],
    "iron": ["iron", "iron ore", "raw iron", "pig iron", "ironstone"],
    "diamond": ["diamond", "raw diamond", "diamond ore", "uncut diamond", "diamond crystal"],
    "sapling": ["sapling stock", "seedling stock", "sprout stock", "nursery stock", "young growth"],
    "ruby": ["ruby", "ruby ore", "raw ruby", "uncut ruby", "ruby crystal"],
    "sapphire": ["sapphire", "sapphire ore", "raw sapphire", "uncut sapphire", "sapphire crystal"],
}
UNITS = {1: ["a piece of", "a unit of", "a chunk of", "a bit of", "a portion of"],
         "many": ["pieces of", "units of", "chunks of", "bits of", "portions of"]}
ACHIEVEMENTS = {
    "collect_wood": ["collect wood", "chop some wood", "gather wood", "cut down a tree for wood", "harvest timber"],
    "place_table": ["place a crafting table", "set up a workbench", "put down a crafting table", "build a workbench", "erect a crafting station"],
    "eat_cow": ["eat a cow", "eat some beef", "hunt a cow and eat it", "have a steak", "feast on a cow"],
    "collect_sapling": ["collect a sapling", "pick up a sapling", "gather a seedling", "find a sapling", "forage a sprout"],
    "collect_drink": ["drink water", "take a drink", "quench your thirst", "have a sip of water", "refresh yourself at the water"],
    "make_wood_pickaxe": ["make a wooden pickaxe", "craft a wood pickaxe", "build a wooden pick", "fashion a timber pickaxe", "whittle a wooden pick"],
    "make_wood_sword": ["make a wooden sword", "craft a wood sword", "build a wooden blade", "fashion a timber sword", "carve a wooden sword"],
    "place_plant": ["plant a sapling", "put a seedling in the ground", "sow a sapling", "set a sprout in the soil", "bed out a seedling"],
    "defeat_zombie": ["defeat a zombie", "kill a zombie", "slay a zombie", "take down a zombie", "vanquish a ghoul"],
    "collect_stone": ["collect stone", "mine some stone", "gather rocks", "quarry some stone", "dig out cobblestone"],
    "place_stone": ["place a stone", "put down a stone block", "set a rock on the ground", "lay a stone", "deposit a cobblestone"],
    "eat_plant": ["eat a plant", "eat a ripe crop", "harvest and eat a plant", "snack on a ripe plant", "dine on your harvest"],
    "defeat_skeleton": ["defeat a skeleton", "kill a skeleton", "slay a skeleton", "destroy a skeleton", "shatter a skeleton archer"],
    "make_stone_pickaxe": ["make a stone pickaxe", "craft a stone pickaxe", "build a stone pick", "fashion a rock pickaxe", "chisel a stone pick"],
    "make_stone_sword": ["make a stone sword", "craft a stone sword", "build a stone blade", "fashion a rock sword", "hew a stone sword"],
    "wake_up": ["wake up", "sleep and wake up", "get some rest and wake up", "take a nap and rise again", "slumber until morning"],
    "place_furnace": ["place a furnace", "build a furnace", "set up a furnace", "put down a smelter", "construct a kiln"],
    "collect_coal": ["collect coal", "mine coal", "gather some coal", "dig up coal", "extract a lump of coal"],
    "collect_iron": ["collect iron", "mine iron", "gather iron ore", "dig up iron", "extract iron ore"],
    "collect_diamond": ["collect a diamond", "mine a diamond", "find a diamond", "dig up a diamond", "unearth a gemstone"],
    "make_iron_pickaxe": ["make an iron pickaxe", "craft an iron pickaxe", "forge an iron pick", "build an iron pickaxe", "smith an iron pick"],
    "make_iron_sword": ["make an iron sword", "craft an iron sword", "forge an iron blade", "build an iron sword", "smith an iron sword"],
}
SIDES = {
    "left": ["to the left of", "left of", "on the left side of", "just left of", "westward of"],
    "right": ["to the right of", "right of", "on the right side of", "just right of", "eastward of"],
    "up": ["above", "north of", "up from", "over", "upward of"],
    "down": ["below", "south of", "down from", "under", "downward of"],
}
NUMBERS = {1: ["one", "a single"], 2: ["two", "a pair of"], 3: ["three", "a trio of"], 4: ["four", "4"], 5: ["five", "5"],
           6: ["six", "half a dozen"], 7: ["seven", "7"], 8: ["eight", "8"], 9: ["nine", "9"]}
CELLS = {1: ["one tile", "a single tile", "one cell", "one step"], 2: ["two tiles", "two cells", "two steps", "a couple of tiles"],
         3: ["three tiles", "three cells", "three steps", "a few tiles"], 4: ["four tiles", "four cells", "four steps", "4 tiles"],
         5: ["five tiles", "five cells", "five steps", "5 tiles"]}
PLACE_VERBS = ["place", "put", "set", "put down", "position", "lay", "install", "plant"]
BUILD_VERBS = ["build", "make", "construct", "create", "form", "assemble", "arrange", "erect"]
COLLECT_VERBS = ["collect", "gather", "get", "obtain", "acquire", "harvest", "pick up", "procure"]
POLITE = ["", "please ", "could you ", "would you ", "i need you to ", "i would like you to ", "kindly ", "go ahead and ", "try to ", "be so kind as to "]
CLOSERS = ["", " please", " for me", " when you can", " as soon as possible", " if you would", " thanks", " without delay"]
ADVERBS = ["", "carefully ", "quickly ", "neatly ", "patiently ", "calmly ", "deliberately ", "swiftly "]
PURPOSES = [
    "", " so we can find our way back", " to mark this spot", " to guard the camp", " as a landmark for later",
    " to keep the zombies out", " for the village", " so travellers notice it", " to practise building",
    " because the elders asked for it", " to celebrate the harvest", " before nightfall", " as a boundary marker",
    " to impress the neighbours", " as a test of your skill",
]
LINE_WORDS = ["line", "row", "straight line", "column", "wall", "file", "chain", "rank"]
ORIENTATIONS = {
    0: ["", " in a straight line", " horizontally or vertically", " along one axis", " with no gaps", " end to end"],
    1: [" diagonally", " along a diagonal", " corner to corner", " in a slanting line", " at an angle", " on the bias"],
    2: ["", " in any direction", " straight or diagonal", " any way you like", " whichever way you prefer", " in whatever direction"],
}
SQUARE_WORDS = ["square", "solid square", "filled square", "block", "plaza", "patch", "tile", "grid"]
CROSS_WORDS = {0: ["plus sign", "cross", "plus", "plus shape", "upright cross"], 1: ["x shape", "diagonal cross", "saltire", "letter x", "x"],
               2: ["cross", "cross shape", "star", "cross of any kind", "asterisk"]}
TIMES = {0: ["during the day", "in daylight", "while the sun is up", "before dark", "by day", "at midday"],
         1: ["at night", "after dark", "during the night", "once night falls", "in the darkness", "by moonlight"]}
EXPLORE_VERBS = ["find", "discover", "locate", "look for", "seek out", "track down", "search for", "spot"]
SEQUENCE = {"then": ["then", "and then", "after that", "afterwards", "next", "once that is done"],
            "and": ["and", "and also", "as well as", "plus", "along with", "together with"]}
WITHOUT = ["but do not", "but never", "and make sure you do not", "while taking care not to", "but be careful not to", "but you must not"]


def held_out(words: list[str]) -> str:
    """The entry of a word list reserved for test phrasings."""
    return words[-1]


FULL_ACHIEVEMENTS = {
    "make_arrow": ["make an arrow", "craft some arrows", "fletch an arrow", "whittle arrows", "assemble a quiver of arrows"],
    "make_torch": ["make a torch", "craft a torch", "fashion a torch", "light a torch", "bind a torch"],
    "place_torch": ["place a torch", "mount a torch", "put a torch on the ground", "plant a burning torch", "set up a torch"],
    "collect_sapphire": ["collect a sapphire", "mine a sapphire", "dig out a sapphire", "find a blue gem", "pry loose a sapphire"],
    "collect_ruby": ["collect a ruby", "mine a ruby", "dig out a ruby", "find a red gem", "pry loose a ruby"],
    "make_diamond_pickaxe": ["make a diamond pickaxe", "craft a diamond pickaxe", "forge a diamond pick", "fashion a diamond pickaxe", "smith a diamond pick"],
    "make_diamond_sword": ["make a diamond sword", "craft a diamond sword", "forge a diamond blade", "fashion a diamond sword", "smith a diamond blade"],
    "make_iron_armour": ["make iron armour", "craft iron armor", "forge an iron breastplate", "put together iron armour", "hammer out iron mail"],
    "make_diamond_armour": ["make diamond armour", "craft diamond armor", "forge a diamond breastplate", "put together diamond armour", "fashion diamond plate"],
    "enter_gnomish_mines": ["enter the gnomish mines", "go down into the gnomish mines", "descend to the mines of the gnomes", "reach the gnome tunnels", "venture into the gnomish caverns"],
    "enter_dungeon": ["enter the dungeon", "go down into the dungeon", "descend into the dungeon", "reach the dungeon level", "venture into the catacombs"],
    "enter_sewers": ["enter the sewers", "go down into the sewers", "descend into the sewers", "reach the sewer tunnels", "wade into the drains"],
    "enter_vault": ["enter the vault", "go down into the vault", "descend into the vault", "reach the vault level", "break into the treasury"],
    "enter_troll_mines": ["enter the troll mines", "go down into the troll mines", "descend to the mines of the trolls", "reach the troll tunnels", "venture into the troll caverns"],
    "enter_fire_realm": ["enter the fire realm", "go down into the fire realm", "descend into the land of fire", "reach the fiery depths", "step into the inferno"],
    "enter_ice_realm": ["enter the ice realm", "go down into the ice realm", "descend into the frozen realm", "reach the icy depths", "step into the glacier halls"],
    "enter_graveyard": ["enter the graveyard", "go down into the graveyard", "descend into the graveyard", "reach the cemetery level", "walk among the tombs"],
    "defeat_gnome_warrior": ["defeat a gnome warrior", "kill a gnome warrior", "slay a gnome fighter", "beat a gnome soldier", "vanquish a gnomish warrior"],
    "defeat_gnome_archer": ["defeat a gnome archer", "kill a gnome archer", "slay a gnome bowman", "beat a gnome marksman", "vanquish a gnomish archer"],
    "defeat_orc_solider": ["defeat an orc soldier", "kill an orc soldier", "slay an orc warrior", "beat an orc grunt", "vanquish an orcish soldier"],
    "defeat_orc_mage": ["defeat an orc mage", "kill an orc mage", "slay an orc wizard", "beat an orc sorcerer", "vanquish an orcish shaman"],
    "defeat_lizard": ["defeat a lizard", "kill a lizard", "slay a giant lizard", "beat a reptile", "vanquish a sewer lizard"],
    "defeat_kobold": ["defeat a kobold", "kill a kobold", "slay a kobold", "beat a kobold raider", "vanquish a kobold scavenger"],
    "defeat_knight": ["defeat a knight", "kill a knight", "slay an armoured knight", "beat a vault knight", "vanquish a paladin"],
    "defeat_archer": ["defeat an archer", "kill an archer", "slay a bowman", "beat a vault archer", "vanquish a crossbowman"],
    "defeat_troll": ["defeat a troll", "kill a troll", "slay a cave troll", "beat a hulking troll", "vanquish a mountain troll"],
    "defeat_deep_thing": ["defeat a deep thing", "kill a deep thing", "slay the creature from the deep", "beat a deep dweller", "vanquish an abyssal horror"],
    "defeat_pigman": ["defeat a pigman", "kill a pigman", "slay a pig warrior", "beat a boar man", "vanquish a swine brute"],
    "defeat_fire_elemental": ["defeat a fire elemental", "kill a fire elemental", "slay a flame spirit", "beat a blaze elemental", "vanquish an ember wraith"],
    "defeat_frost_troll": ["defeat a frost troll", "kill a frost troll", "slay an ice troll", "beat a snow troll", "vanquish a glacier troll"],
    "defeat_ice_elemental": ["defeat an ice elemental", "kill an ice elemental", "slay a frost spirit", "beat a snow elemental", "vanquish a blizzard wraith"],
    "damage_necromancer": ["damage the necromancer", "wound the necromancer", "strike the necromancer", "hurt the dark sorcerer", "land a blow on the lich"],
    "defeat_necromancer": ["defeat the necromancer", "kill the necromancer", "slay the necromancer", "destroy the dark sorcerer", "vanquish the lich"],
    "eat_bat": ["eat a bat", "catch and eat a bat", "have a bat for dinner", "feed on a bat", "devour a cave bat"],
    "eat_snail": ["eat a snail", "catch and eat a snail", "have a snail for dinner", "feed on a snail", "slurp down a snail"],
    "find_bow": ["find a bow", "pick up a bow", "discover a bow", "loot a bow", "recover a longbow"],
    "fire_bow": ["fire the bow", "shoot an arrow", "loose an arrow from the bow", "shoot the bow", "let an arrow fly"],
    "learn_fireball": ["learn the fireball spell", "study fireball", "learn to cast fireballs", "master the fireball incantation", "memorise the flame spell"],
    "cast_fireball": ["cast a fireball", "hurl a fireball", "throw a fireball spell", "conjure a fireball", "unleash a ball of flame"],
    "learn_iceball": ["learn the iceball spell", "study iceball", "learn to cast iceballs", "master the iceball incantation", "memorise the frost spell"],
    "cast_iceball": ["cast an iceball", "hurl an iceball", "throw an iceball spell", "conjure an iceball", "unleash a ball of frost"],
    "open_chest": ["open a chest", "unlock a chest", "open a treasure chest", "pry open a chest", "raid a coffer"],
    "drink_potion": ["drink a potion", "quaff a potion", "sip a potion", "down a potion", "imbibe an elixir"],
    "enchant_sword": ["enchant your sword", "enchant the sword", "imbue your sword with magic", "put an enchantment on your blade", "bless your blade"],
    "enchant_armour": ["enchant your armour", "enchant the armor", "imbue your armour with magic", "put an enchantment on your armour", "bless your breastplate"],
}
FULL_CHAINS = (
    ("make_stone_pickaxe", "enter_gnomish_mines"), ("enter_gnomish_mines", "defeat_gnome_warrior"), ("enter_gnomish_mines", "collect_sapphire"),
    ("enter_dungeon", "open_chest"), ("open_chest", "find_bow"), ("find_bow", "fire_bow"), ("make_arrow", "fire_bow"),
    ("make_torch", "place_torch"), ("collect_coal", "make_torch"), ("collect_ruby", "enchant_sword"), ("collect_sapphire", "enchant_armour"),
    ("make_iron_armour", "make_diamond_armour"), ("make_iron_pickaxe", "make_diamond_pickaxe"), ("enter_dungeon", "learn_fireball"),
    ("learn_fireball", "cast_fireball"), ("learn_iceball", "cast_iceball"), ("enter_sewers", "defeat_lizard"), ("enter_vault", "defeat_knight"),
    ("enter_troll_mines", "defeat_troll"), ("enter_fire_realm", "defeat_fire_elemental"), ("enter_ice_realm", "defeat_frost_troll"),
    ("enter_graveyard", "damage_necromancer"), ("damage_necromancer", "defeat_necromancer"), ("enter_gnomish_mines", "eat_bat"),
)
OPENERS = [
    "", "alright, ", "okay, ", "listen, ", "next up: ", "first things first: ", "new job: ", "one more thing: ",
    "while the sun is still high, ", "before the zombies come out, ", "now that you are rested, ", "since you have some time, ",
    "while the weather holds, ", "whenever you are ready, ", "as soon as you wake, ", "when the coast is clear, ",
    "if you are not too tired, ", "before you wander off, ", "since the village is counting on you, ", "while i keep watch, ",
    "good morning, adventurer: ", "hey builder, ", "greetings, traveller: ", "dear apprentice, ", "friend, ",
    "comrade, ", "partner, ", "young explorer, ", "brave wanderer, ", "hello there, ",
]
ENCOURAGEMENTS = [
    "", " take your time.", " good luck out there.", " you can do it.", " watch out for skeletons.",
    " mind the lava.", " stay clear of the zombies.", " keep an eye on your health.", " remember to eat and drink.",
    " the elders will be grateful.", " i believe in you.", " do not get lost.", " be quick but careful.",
    " come back in one piece.", " this will be useful later.", " it should not take long.",
    " everyone is relying on you.", " i will be waiting by the camp.", " the reward will be worth it.",
    " do not forget your tools.", " keep your sword handy.", " beware of cave monsters.",
    " it might get dark soon.", " make me proud.", " try not to waste materials.",
]
MORE_PURPOSES = [
    " so the sheep have shelter", " to block the wind", " to honour our ancestors", " so the caravan can rest here",
    " to frighten away the goblins", " as a gift for the blacksmith", " to decorate the square", " as part of the new farmstead",
    " to fence in the orchard", " for the midsummer festival", " to outline the future garden", " so the scouts can signal each other",
    " to commemorate the founding of the town", " as a memorial for fallen heroes", " to keep the river from flooding",
    " so the miners know where to dig", " to shelter the beehives", " as a foundation for the watchtower",
    " to test the surveyor's map", " so the children have somewhere to play", " to mark the treasure's hiding place",
    " for the harvest fair", " to please the wandering merchant", " as a shrine for the spirits of the forest",
    " before the winter storms arrive", " to guide lost sailors", " so the herd does not stray", " to practise your masonry",
    " for the apprentice carpenters", " as a sundial for the village", " to welcome the visiting queen", " to protect the well",
]
MORE_ADVERBS = [
    "gently ", "steadily ", "promptly ", "diligently ", "cautiously ", "methodically ", "confidently ", "precisely ",
    "thoughtfully ", "efficiently ", "eagerly ", "boldly ", "quietly ", "briskly ", "skilfully ", "wisely ",
]


def _extend(words: list[str], extra: list[str]) -> None:
    """Add words before a list's held-out last entry (which stays last, so stays held out)."""
    words[-1:-1] = [w for w in extra if w not in words]


_extend(PURPOSES, MORE_PURPOSES)
_extend(ADVERBS, MORE_ADVERBS)


# Descriptive adjectives by the kind of thing they may describe (never change what a goal asks).
ADJECTIVES = {
    "stone": ["grey", "weathered", "mossy", "rough", "polished", "chiselled", "cracked", "smooth", "heavy", "solid", "speckled", "dusty", "cold", "jagged", "quarried"],
    "crafting_table": ["wooden", "sturdy", "rustic", "handmade", "carved", "varnished", "oaken", "trusty", "battered", "spacious", "wobbly", "finely crafted", "brand new", "solid", "well-worn"],
    "furnace": ["smoky", "sooty", "blazing", "brick", "roaring", "scorching", "clay", "hulking", "glowing", "squat", "blackened", "reliable", "fiery", "heavy", "iron-bound"],
    "plant": ["tender", "leafy", "budding", "healthy", "delicate", "sprouting", "fragile", "young", "thriving", "verdant", "slender", "vigorous", "dainty", "lush", "flourishing"],
    "target": ["nearby", "closest", "nearest", "familiar", "visible", "distant", "lonely", "quiet", "old", "ancient", "big", "small", "wide", "narrow", "peaceful"],
    "item": ["fresh", "dry", "raw", "precious", "valuable", "sturdy", "shiny", "heavy", "rare", "useful", "common", "plentiful", "hard-won", "sorted", "clean"],
    "structure": ["neat", "tidy", "perfect", "proper", "solid", "sturdy", "handsome", "clean", "orderly", "symmetrical", "careful", "well-made", "flawless", "crisp", "precise"],
}
VOCATIVES = [
    "", "adventurer, ", "builder, ", "friend, ", "traveller, ", "apprentice, ", "comrade, ", "partner, ", "explorer, ",
    "wanderer, ", "my friend, ", "young one, ", "captain, ", "scout, ", "settler, ", "pioneer, ", "architect, ",
    "mason, ", "ranger, ", "pathfinder, ", "homesteader, ", "craftsman, ", "surveyor, ", "hero, ",
]
MORE_POLITE = [
    "would you mind if you ", "if it is not too much trouble, ", "when you get a chance, ", "i am asking you to ", "your job is to ",
    "i would appreciate it if you would ", "do me a favour and ", "make sure to ", "remember to ", "see if you can ",
    "it would help a lot if you could ", "i am counting on you to ",
]
MORE_OPENERS = [
    "as we discussed, ", "to begin with, ", "for the next part, ", "on to the next chore: ", "here comes a new request: ",
    "the council has decided: ", "the blacksmith sent word: ", "the farmers are asking: ", "a message from the mayor: ",
    "while the river is calm, ", "before the rain starts, ", "now that the path is clear, ", "while the cows graze, ",
    "after a good breakfast, ", "once you have caught your breath, ", "with the tools you carry, ", "at your own pace, ",
    "before the merchants arrive, ", "while the fog lifts, ", "while the birds are singing, ", "since the harvest is in, ",
]
MORE_ENCOURAGEMENTS = [
    " no rush.", " report back afterwards.", " let me know when you are finished.", " i will check on you later.", " enjoy the work.",
    " this is an important step.", " the whole camp will thank you.", " watch your footing near the water.", " keep some food on you.",
    " stay away from the cliffs.", " the night is dangerous, so hurry.", " i trust your judgement.", " you have done harder things.",
    " follow the plan exactly.", " double-check your work.", " a steady hand helps.", " we will celebrate afterwards.",
    " take a torch if it gets dark.", " mind the arrows of the skeletons.", " rest if you get tired.", " i have faith in you.",
    " the old maps say it is possible.", " patience pays off.", " careful work lasts longer.",
]
EVEN_MORE_PURPOSES = [
    " so the goats cannot escape", " to test the new tools", " as a warning to raiders", " for the autumn market", " to impress the traders",
    " so the pilgrims can find us", " as practice for the great wall", " to give the bees some shade", " to honour the founders",
    " so we remember where the spring is", " to mark the halfway point", " for the wedding feast", " as a resting place for hikers",
    " to divide the fields", " so the rabbits stay out of the garden", " for the travelling circus", " as a lookout point",
    " to shelter the firewood", " so the shepherd knows his way", " to prepare for the siege", " as a surprise for the elders",
    " to finish the blueprint", " so nobody trips in the dark", " for the inspection tomorrow", " to keep the dust down",
]
MORE_PLACE_VERBS = ["deposit", "station", "situate", "drop", "lodge", "fix", "mount", "set out"]
MORE_BUILD_VERBS = ["raise", "fashion", "put together", "lay out", "shape", "compose", "piece together", "produce"]
MORE_COLLECT_VERBS = ["gather up", "round up", "stock up on", "amass", "accumulate", "scrounge", "secure", "fetch"]

_extend(POLITE, MORE_POLITE)
_extend(OPENERS, MORE_OPENERS)
_extend(ENCOURAGEMENTS, MORE_ENCOURAGEMENTS)
_extend(PURPOSES, EVEN_MORE_PURPOSES)
_extend(PLACE_VERBS, MORE_PLACE_VERBS)
_extend(BUILD_VERBS, MORE_BUILD_VERBS)
_extend(COLLECT_VERBS, MORE_COLLECT_VERBS)
