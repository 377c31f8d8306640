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


# Scene-setting and motivation phrases in many registers (a villager's request, a guild notice, a
# storyteller's aside). They never name a block, item or creature, so they cannot change the goal.
STORY_PURPOSES = [
    " so the midwife can find our cottage", " as a token of friendship with the fishermen", " to settle an argument between the cousins",
    " so the cartographer can finish her chart", " to show the tax collector we are serious", " before the festival lanterns are lit",
    " as a wager with the innkeeper", " so the goose girl stops complaining", " to calm the nervous horses", " as penance for yesterday's mischief",
    " to win the carpenters' guild contest", " in memory of grandmother", " so the hermit knows we came in peace", " for the solstice ceremony",
    " to greet the returning expedition", " because the prophecy demands it", " to satisfy the curious monks", " so the weaver has a landmark",
    " to prove the doubters wrong", " as a wedding present for the baker's daughter", " for the orphans of the valley", " to honour the drowned sailors",
    " so the beekeeper can rest in the shade", " to outshine the rival village", " as homework from the academy", " because the duke requested it",
    " to please the river goddess", " so the postman stops getting lost", " for luck before the long voyage", " as a meeting point for the hunters",
    " to amuse the visiting jesters", " so the potter can admire it", " as a sign of good faith", " to attract wandering minstrels",
    " for the scholars studying geometry", " so future generations will remember us", " to mark the border with the kingdom next door",
    " because the old oracle dreamed of it", " to earn a badge from the rangers", " for the spring equinox", " to test the foundations of the ground",
    " so the mapmakers have a reference point", " to keep the goats from wandering into the marsh", " as a trophy for the tournament",
    " to teach the novices a lesson", " so the lighthouse keeper can spot us", " before the comet passes overhead", " while the moon is full",
    " in honour of the harvest queen", " to celebrate the birth of the twins", " so the shepherds have a rallying place", " as a gift to the forest spirits",
    " to cheer up the grumpy miller", " for the annual inspection by the guild masters", " because tradition requires it",
    " so the pilgrims can pray there", " to welcome spring", " in preparation for the great migration", " so the falconer has a perch",
    " to measure the length of the shadow at noon", " as a reference for the astronomers", " to hold the banner of our clan",
    " so the herbalist can dry her herbs", " as a stage for the travelling actors", " to shelter the ducks", " to keep the snow from drifting",
    " so the cart drivers can turn around", " to delight the youngsters", " as an offering to the mountain", " for the ambassador's visit",
    " to settle the bet with the blacksmith's apprentice", " because the architect's plans call for it", " as a starting line for the race",
    " to mark where the treaty was signed", " so the lost kitten can find its way home", " as a monument to hard work",
    " to rehearse for the competition", " before the tide comes in", " while the fields lie fallow", " so the watchmen have cover",
    " as a backdrop for the portrait painter", " to impress the visiting princess", " for the poets to write about",
    " so the flock has a windbreak", " to support the vines", " as a gathering place for storytellers", " to celebrate the end of the drought",
    " to remind everyone of the great flood", " so the lantern bearers know the route", " as a gift for the newlyweds",
    " to decorate the crossroads", " for the knights returning from the crusade", " to mark the spot where the meteor fell",
    " because the almanac says it is a lucky day", " to cheer the soldiers at the garrison", " so the fishermen can dry their nets",
    " as part of our treaty with the elves", " to give the ravens somewhere to roost", " for the summer fair", " to calm the restless ghosts",
    " so the minstrel has somewhere to sing", " as a gift for the village chief", " to please the picky landlord", " so the cook has a windshield",
    " to satisfy the royal surveyor", " in honour of the fallen scouts", " to amaze the passing caravan", " as a sign for weary travellers",
    " to outline the new marketplace", " for the coronation parade", " to show the apprentices how it is done", " as a proof of concept",
    " to frame the view of the sunset", " so the donkey has a stall", " to keep the chickens in order", " before the harvest moon rises",
    " so the druids can hold their rites", " as a symbol of our unity", " to mark the grave of the old dog", " to win the favour of the council",
]
STORY_OPENERS = [
    "by order of the village council, ", "hear ye, hear ye: ", "as the old saying goes, measure twice and cut once: ",
    "the innkeeper has a request: ", "a note from the quartermaster: ", "word from the northern outpost: ", "the guild has posted a notice: ",
    "as the rooster crows, ", "under the afternoon sun, ", "while the kettle boils, ", "before supper is served, ", "as the shadows lengthen, ",
    "while the wind is gentle, ", "now that the storm has passed, ", "as dawn breaks over the hills, ", "while the frogs are croaking, ",
    "before the bells ring, ", "as the leaves turn golden, ", "while the mist clings to the valley, ", "when the clouds part, ",
    "after the market closes, ", "before the bridge is repaired, ", "as soon as the snow melts, ", "while the crickets chirp, ",
    "according to the ancient scroll, ", "following the chieftain's wishes, ", "per the foreman's instructions, ", "at the request of the abbess, ",
    "on behalf of the whole settlement, ", "with the blessing of the elders, ", "in keeping with tradition, ", "just between us, ",
    "believe it or not, ", "here is a challenge for you: ", "i have a small favour to ask: ", "time for a little project: ",
    "your next assignment: ", "today's chore: ", "an urgent matter: ", "a quick errand: ", "a special mission: ", "a simple exercise: ",
    "for your training today, ", "to warm up, ", "as a final test, ", "for extra credit, ", "by popular demand, ", "to keep you busy, ",
    "while the others sleep, ", "before the guests arrive, ", "as the bonfire crackles, ", "under a clear blue sky, ", "while the stars come out, ",
    "on this fine morning, ", "on this gloomy afternoon, ", "despite the drizzle, ", "in spite of the heat, ", "with winter on the way, ",
]
STORY_ENCOURAGEMENTS = [
    " the bards will sing of this.", " may fortune favour you.", " safe travels.", " godspeed.", " fair winds to you.", " do not dawdle.",
    " keep your wits about you.", " trust your instincts.", " slow and steady wins the race.", " the ancestors are watching.",
    " we are all cheering for you.", " the children made you a snack for the road.", " bring a lantern just in case.",
    " whistle if you need help.", " the sooner the better.", " i will put the kettle on for your return.", " stay hydrated.",
    " the weather looks promising.", " the scouts say the area is quiet.", " keep your boots dry.", " listen for strange noises.",
    " dinner will be ready when you return.", " the guild will pay handsomely.", " it is a matter of honour.", " there is no shame in trying again.",
    " mistakes are how we learn.", " our future depends on it.", " the spirits are on your side.", " keep calm and carry on.",
    " you are our best hope.", " show them what you are made of.", " let nothing distract you.", " focus on the task at hand.",
    " one step at a time.", " measure everything twice.", " keep count as you go.", " the details matter.", " admire the view while you work.",
    " i packed you some bread and cheese.", " the horses are saddled if you need them.", " hum a tune to pass the time.",
    " do not talk to strangers on the road.", " avoid the haunted hollow.", " the bridge to the east is broken, so go around.",
    " the fog may roll in later.", " remember your training.", " you have got this.", " we believe in you, champion.",
    " everyone started as a beginner.", " i will owe you one.", " there might be a bonus in it for you.", " make it a masterpiece.",
    " nobody does it better than you.", " the mayor will hear of your deeds.", " your reputation precedes you.", " be brave.",
    " the journey matters as much as the destination.", " keep your spirits high.", " breathe deeply and begin.",
]
STORY_VOCATIVES = [
    "good sir, ", "my lady, ", "dear neighbour, ", "old timer, ", "rookie, ", "novice, ", "champion, ", "my dear, ", "kiddo, ",
    "soldier, ", "sailor, ", "farmhand, ", "stablehand, ", "woodsman, ", "prospector, ", "wayfarer, ", "nomad, ", "vagabond, ",
    "squire, ", "knight errant, ", "journeyman, ", "artisan, ", "tinkerer, ", "engineer, ", "steward, ", "sentry, ", "lookout, ",
    "buddy, ", "pal, ", "chum, ", "mate, ", "cousin, ", "sister, ", "brother, ", "apprentice builder, ", "chief, ", "boss, ",
]
MANNER_ADVERBS = [
    "attentively ", "meticulously ", "painstakingly ", "resolutely ", "gracefully ", "nimbly ", "deftly ", "cheerfully ", "happily ",
    "willingly ", "earnestly ", "faithfully ", "tirelessly ", "vigilantly ", "warily ", "tactfully ", "sensibly ", "cleverly ",
    "expertly ", "competently ", "handily ", "discreetly ", "stealthily ", "bravely ", "courageously ", "fearlessly ",
    "valiantly ", "dutifully ", "obediently ", "purposefully ", "intently ", "keenly ", "zealously ", "energetically ", "vigorously ",
    "smoothly ", "cleanly ", "tidily ", "systematically ", "logically ", "rationally ", "prudently ", "judiciously ",
    "economically ", "frugally ", "thriftily ", "modestly ", "humbly ", "proudly ", "gladly ", "joyfully ", "merrily ", "playfully ",
    "leisurely ", "unhurriedly ", "serenely ", "peacefully ", "tranquilly ", "rapidly ", "speedily ", "hastily ", "hurriedly ",
    "immediately ", "soon ", "shortly ", "presently ", "directly ", "straightaway ", "instantly ", "without fuss ",
]
MORE_ADJECTIVES = {
    "stone": ["granite", "marble", "slate", "flinty", "craggy", "pitted", "worn", "ashen", "pale", "dark", "sturdy", "ancient", "hewn", "knobbly", "glossy"],
    "crafting_table": ["maple", "pine", "birch", "walnut", "cedar", "rickety", "polished", "sanded", "lacquered", "ornate", "plain", "humble", "sturdy-legged", "old-fashioned", "reliable"],
    "furnace": ["crackling", "smouldering", "red-hot", "soot-stained", "stout", "domed", "chimneyed", "ironclad", "tall", "cast-iron", "radiant", "toasty", "clanking", "venerable", "trustworthy"],
    "plant": ["green", "sprightly", "hopeful", "tiny", "little", "baby", "spindly", "robust", "fresh", "dewy", "blossoming", "emerald", "supple", "frail", "promising"],
    "target": ["gleaming", "murky", "sparkling", "shimmering", "shadowy", "sunlit", "moonlit", "windswept", "secluded", "hidden", "towering", "sprawling", "tranquil", "bubbling", "rugged"],
    "item": ["gathered", "stockpiled", "bundled", "assorted", "spare", "extra", "leftover", "prized", "coveted", "gleaming", "hefty", "light", "compact", "trusty", "honest"],
    "structure": ["elegant", "graceful", "striking", "impressive", "modest", "humble", "straight", "even", "balanced", "aligned", "regular", "sharp", "beautiful", "lovely", "magnificent"],
}

# A second register: chronicle, trade and household talk, again without naming any game object.
CHRONICLE_PURPOSES = [
    " so the chronicler can record it in the annals", " to fulfil an ancient covenant", " as restitution for the broken fence",
    " so the tanner has somewhere to stretch hides", " for the glassblower's exhibition", " to appease the quarrelsome dwarves",
    " as scaffolding for the cathedral", " to commemorate the eclipse", " so the cobbler can display his boots", " to satisfy the archivist",
    " as a perch for the storks", " to guide the smugglers astray", " so the tailor can hang banners", " for the jousting tournament",
    " to inaugurate the academy", " to welcome the envoy from the south", " as collateral for the loan", " to decorate the orchard gate",
    " so the toll keeper can collect fees", " as a monument to the plague survivors", " so the brewer can age his barrels",
    " for the vintners' harvest dance", " to demarcate the commons", " as an obstacle course for recruits", " to hide the entrance of the tunnel",
    " so the clockmaker can calibrate her sundial", " to mark the parish boundary", " in gratitude to the healer", " as a playground for the puppies",
    " so the geologists can compare samples", " for the choir rehearsing outdoors", " to reassure the anxious villagers", " as ballast against the gales",
    " to signal the fleet offshore", " so the abbot can meditate nearby", " as a handrail for the elderly", " for the chess club's giant board",
    " to bewilder the invading army", " so the merchants' guild approves our charter", " in anticipation of the royal census",
    " to frame the entrance to the garden maze", " so the couriers can exchange parcels", " to placate the stubborn mule",
    " for the midwinter vigil", " as an experiment in architecture", " so the pottery kiln workers can rest", " to flatter the vain baron",
    " because the charter grants us the right", " to shade the cheese cellar", " as a hiding spot for hide and seek",
    " to dry the laundry", " so the glaziers have a workshop", " to record the height of the spring flood", " for the falconry display",
    " so the hunting dogs have a kennel", " to mark the ford across the brook", " to honour the patron saint of builders",
    " as a reward for the diligent students", " to rival the famous ruins", " so the lamplighter has a route", " as a beacon for the balloonists",
    " to give the swallows a nesting place", " for the goldsmith's daughter", " to celebrate our first anniversary", " so the ferryman can tie up his boat",
    " as a rehearsal for the grand opening", " to stop the erosion of the riverbank", " so the wheelwright can inspect the carts",
    " to delight the botanists", " as homage to the legendary mason", " before the inquisitors arrive", " to please the picky critics",
]
CHRONICLE_OPENERS = [
    "in the name of the realm, ", "by decree of the regent, ", "let it be known that ", "as recorded in the ledger, ",
    "pardon the interruption, but ", "forgive my rambling, but ", "to cut a long story short, ", "long story short, ",
    "in a nutshell, ", "to put it plainly, ", "frankly speaking, ", "honestly, ", "between you and me, ", "if you ask me, ",
    "mark my words, ", "it is high time: ", "without further ado, ", "without wasting a moment, ", "once the dishes are washed, ",
    "once the cattle are fed, ", "once the candles are lit, ", "once the fog has lifted, ", "after the sermon, ", "after the feast, ",
    "before the auction, ", "before the tournament, ", "during the lull in the rain, ", "during the quiet hours, ",
    "at the crack of dawn, ", "around teatime, ", "by the light of the lanterns, ", "amid all this excitement, ",
]
CHRONICLE_ENCOURAGEMENTS = [
    " we shall toast your success tonight.", " the scribes are ready to record your triumph.", " i have heard great things about you.",
    " the weather vane points to good luck.", " the fortune teller foresaw your victory.", " keep your chin up.",
    " persistence is a virtue.", " consistency is the key.", " practice makes perfect.", " haste makes waste.", " fortune favours the bold.",
    " well begun is half done.", " every little bit helps.", " your effort will not go unnoticed.", " may your hands stay steady.",
    " may your path be clear.", " may the wind be at your back.", " the harvest festival awaits your return.", " a warm bath awaits you afterwards.",
    " i will brew some tea meanwhile.", " mind the brambles.", " watch for loose gravel underfoot.", " beware the quicksand by the marsh.",
    " shout if anything goes wrong.", " signal with a whistle when finished.", " ring the bell when you are done.",
    " be home before curfew.", " do not forget to stretch.", " tie your laces first.", " wear your gloves.",
]
CLOSING_PHRASES = [" at your earliest convenience", " right away", " today", " this very moment", " at once", " if you can manage it",
                   " whenever it suits you", " before long", " if possible", " in due course", " on the double", " with all due care"]

# A third register: the countryside almanac (seasons, crafts, livestock, cooking, music, the sky).
ALMANAC_PURPOSES = [
    " so the thatcher can repair the roofs", " before the swallows fly south", " while the barley ripens", " so the ploughman can rest his oxen",
    " to shield the turnips from frost", " as a trellis for the pumpkins", " so the dairymaid can churn butter in peace", " before the cider is pressed",
    " to keep the piglets out of the vegetable patch", " for the sheep shearing contest", " while the hay is drying", " before the hailstorm",
    " so the mushrooms stay in shadow", " to guide the geese to the pasture", " as a roost for the owls", " to protect the lambs from foxes",
    " for the cheesemakers' competition", " so the apiary has a sheltered corner", " to celebrate the first snowfall", " before the frost bites",
    " so the blackberries ripen undisturbed", " as a scarecrow stand", " for the pie-eating contest", " so the fiddlers can play at dusk",
    " for the drummers' parade", " to give the flautist some echo", " as a bandstand for the brass players", " so the carollers can gather",
    " to observe the constellations", " for stargazing on clear nights", " to track the phases of the moon", " so the navigators can align their compasses",
    " as an anchor point for the kites", " to catch the morning dew", " before the monsoon", " to break the gusts from the prairie",
    " for the tulip show", " so the lavender field has a border", " as a windbreak for the rosebushes", " so the orchard thieves get confused",
    " to stop the rabbits burrowing", " for the goat milking schedule", " so the carrier pigeons have a loft", " before the migration of the cranes",
    " to shelter the bakery's ovens from drafts", " for the soup kitchen queue", " as a spice rack for the cook", " to cool the jam jars",
    " so the butcher's hooks have support", " for the pickling season", " to keep the grain sacks dry", " so the millstone has a base",
    " for the wool dyers", " so the loom has a sturdy frame", " as a drying rack for herbs", " to display the quilts",
    " for the tinsmith's wares", " so the pedlar can set up shop", " as an easel for the painter", " to frame the duck pond",
    " before the equinox storms", " during this warm spell", " while the cherry trees blossom", " after the thaw",
]
ALMANAC_OPENERS = [
    "while the bread rises, ", "once the cows are milked, ", "before the hens roost, ", "as the church bells chime, ", "while the soup simmers, ",
    "before the shearing starts, ", "as the swallows return, ", "while the orchard blooms, ", "while the ponies graze, ",
    "before the hay is baled, ", "once the apples are picked, ", "with the autumn chill setting in, ", "with spring in the air, ",
    "with summer drawing to a close, ", "in the heart of winter, ", "on this crisp morning, ", "on this balmy evening, ", "on this windy day, ",
]
ALMANAC_ENCOURAGEMENTS = [
    " the almanac promises fair weather.", " red sky at night, so tomorrow will be fine.", " the geese are honking, so hurry.",
    " grandma is baking a pie for you.", " the lemonade is cooling in the cellar.", " the cat will keep you company.",
    " the dog wants to follow you, let him.", " the roosters will cheer you on.", " the meadowlarks are singing for you.",
    " a rainbow is a good omen.", " the barometer is steady.", " the orchard smells wonderful today.", " the breeze will keep you cool.",
    " do not trample the daisies.", " watch out for nettles.", " keep away from the wasp nest.", " the creek is shallow near the willows.",
]
MORE_ACHIEVEMENT_WORDS = {
    "collect_wood": ["fell a tree", "gather some logs", "chop timber"], "place_table": ["assemble a workbench", "set a crafting table down"],
    "eat_cow": ["butcher a cow for food", "dine on beef"], "collect_drink": ["drink from the water", "slake your thirst"],
    "make_wood_pickaxe": ["carve a wooden pickaxe", "put together a wooden pick"], "make_wood_sword": ["craft a wooden blade", "put together a wooden sword"],
    "defeat_zombie": ["destroy a zombie", "beat a zombie"], "collect_stone": ["chip off some stone", "hack out some rock"],
    "collect_sapling": ["grab a sapling", "pluck a seedling"], "wake_up": ["rest until you wake", "doze off and then wake"],
    "defeat_skeleton": ["beat a skeleton", "smash a skeleton"], "collect_coal": ["chip out some coal", "quarry coal"],
    "collect_iron": ["quarry iron", "chip out some iron ore"], "collect_diamond": ["obtain a diamond", "prise out a diamond"],
    "place_furnace": ["install a furnace", "put a furnace down"], "place_stone": ["drop a stone block", "set down a stone"],
    "eat_plant": ["consume a ripe plant", "munch on a ripe crop"], "place_plant": ["replant a sapling", "put a sapling in the earth"],
}
MORE_BLOCK_WORDS = {
    "water": ["brook", "puddle", "river"], "tree": ["birch", "pine", "elm"], "grass": ["pasture", "field", "greensward"],
    "sand": ["sandy ground", "shore"], "path": ["lane", "pathway"], "lava": ["molten lava", "volcanic pool"],
    "coal": ["coal lump", "coal vein"], "iron": ["iron seam", "iron lode"], "diamond": ["diamond vein", "sparkling gem"],
    "plant": ["seedling plant", "little sprout"], "stone": ["boulder block", "masonry block"],
}

# A fourth register: harbour, mountain pass and scholarly life.
VOYAGE_PURPOSES = [
    " so the harbourmaster can moor the galleys", " as a bollard for the schooners", " to signal the frigate captain", " before the regatta",
    " so the deckhands can coil their ropes", " to dry the sails", " for the boatwrights' guild", " to mark the reef for pilots",
    " so the oarsmen can practise", " before the convoy departs", " to welcome the whalers home", " as a jetty marker",
    " so the mountaineers can rope up", " for the sherpas' base camp", " to mark the avalanche zone", " so the yak herders can rest",
    " to guide climbers through the pass", " before the glacier advances", " as a cairn on the summit trail", " for the alpine festival",
    " so the professors can measure angles", " to test a theorem about symmetry", " for the mathematicians' symposium", " to illustrate the lecture on perspective",
    " so the alchemists can observe", " for the librarians' field trip", " to settle a philosophical debate", " as an exhibit in the museum",
    " for the botanical survey", " so the surveyors can triangulate", " to calibrate the telescope", " as a model for the engineering class",
    " to prove the hypothesis of the young scholar", " for the encyclopaedia's illustrations", " to verify the legend in the manuscript",
    " as a puzzle for the riddle masters", " so the linguists have something to name", " to please the visiting dignitaries",
    " for the carnival acrobats", " so the jugglers have a backdrop", " as a podium for the orator", " for the puppet theatre",
    " to hang the lanterns of the night market", " for the fireworks display", " so the tightrope walkers can anchor their line",
    " as a trophy case for the wrestlers", " to welcome the touring orchestra", " for the poetry recital", " as a venue for the debate",
]
VOYAGE_ENCOURAGEMENTS = [
    " steady as she goes.", " all hands on deck.", " smooth sailing ahead.", " the compass points true.", " climb every mountain.",
    " the summit is within reach.", " knowledge is power.", " curiosity will guide you.", " the professors will be impressed.",
    " it will make a fine chapter in your memoirs.", " history will remember this day.", " the crowd is gathering to watch.",
    " the orchestra is tuning up in your honour.", " applause awaits.", " bravo in advance.", " encore, if you like.",
    " your ancestors would be proud.", " the neighbours are already gossiping about it.", " it is easier than it sounds.",
    " it is trickier than it looks.", " the instructions are precise for a reason.", " precision beats speed.",
]
WORK_VOCATIVES = [
    "navigator, ", "helmsman, ", "deckhand, ", "climber, ", "mountaineer, ", "scholar, ", "professor, ", "student, ", "pupil, ",
    "acrobat, ", "juggler, ", "bard, ", "minstrel, ", "shepherd, ", "farmer, ", "gardener, ", "miner, ", "smith, ", "carpenter, ",
    "lumberjack, ", "forester, ", "hunter, ", "trapper, ", "fisherman, ", "cook, ", "baker, ", "brewer, ", "potter, ", "weaver, ",
]
MORE_MANNER_ADVERBS = [
    "adroitly ", "artfully ", "assiduously ", "conscientiously ", "dexterously ", "doggedly ", "elegantly ", "exactly ",
    "faultlessly ", "firmly ", "gingerly ", "heedfully ", "industriously ", "laboriously ", "lightly ", "lovingly ", "mindfully ",
    "perfectly ", "persistently ", "quietly ", "rigorously ", "scrupulously ", "sedulously ",
    "shrewdly ", "sprightly ", "sturdily ", "surely ", "thoroughly ", "unerringly ", "unfailingly ", "watchfully ", "wholeheartedly ",
]

# A fifth register: wilderness lore, craftsmanship and household proverbs.
WILDERNESS_PURPOSES = [
    " so the badgers leave our burrows alone", " to confuse the wolves", " so the deer have a salt lick", " to mark the bear's territory",
    " as a refuge from the thunderstorm", " so the otters can sunbathe", " to guide the salmon upstream", " as a lookout over the canyon",
    " to protect the nesting herons", " for the dragonfly watchers", " to mark the badger sett", " so the foragers can meet",
    " to celebrate the blooming of the heather", " before the thistles go to seed", " to commemorate the great wildfire",
    " for the hedgehogs to hide behind", " to signal the trappers", " so the woodpeckers stay away from the cottage",
    " as a gateway to the wilderness", " to honour the guardian of the glade", " so the fireflies gather at dusk", " to mark the old hunting trail",
    " as a hitching post for the ponies", " for the pheasant hunters", " to keep the boar away from the acorns", " to show the squirrels who is boss",
    " as practice for the masons' exam", " to demonstrate proper joinery", " to showcase your craftsmanship", " as a sample for the customer",
    " to fill the empty corner of the yard", " so grandfather can sit and whittle", " as a hiding place for birthday presents",
    " to give the toddlers a landmark", " so the neighbours stop borrowing our ladder", " to settle the squabble over the fence",
    " before the in-laws visit", " for the family reunion", " to surprise your sweetheart", " as a keepsake",
]
WILDERNESS_ENCOURAGEMENTS = [
    " the early bird catches the worm.", " many hands make light work.", " rome was not built in a day.", " a stitch in time saves nine.",
    " every cloud has a silver lining.", " where there is a will there is a way.", " actions speak louder than words.",
    " the proof of the pudding is in the eating.", " the wolves are howling far away, so you are safe.", " the owls will watch over you.",
    " beware of the brambles near the glade.", " the salmon are jumping, a lucky sign.", " the heather is in bloom.",
]
FRAME_WORDS = {
    "wish": ["i was hoping you could", "it would be wonderful if you could", "i wonder whether you could", "perhaps you could", "i trust you will"],
    "duty": ["it falls to you to", "the honour goes to you to", "it is your turn to", "you have been chosen to", "fate calls upon you to"],
    "list": ["first on the list", "top priority", "item number one", "the main objective", "the headline task"],
    "quest": ["consider this your quest", "this is your mission", "here is your challenge", "behold your trial", "such is your errand"],
}

MORE_FULL_ACHIEVEMENT_WORDS = {
    "make_arrow": ["feather an arrow shaft", "produce arrows"], "make_torch": ["kindle a torch", "prepare a torch"],
    "collect_sapphire": ["extract a sapphire", "harvest a sapphire"], "collect_ruby": ["extract a ruby", "harvest a ruby"],
    "enter_gnomish_mines": ["climb down to the gnomish mines", "explore the gnome warrens"], "enter_dungeon": ["climb down into the dungeon", "explore the dungeon crypts"],
    "enter_sewers": ["climb down into the sewers", "explore the sewer tunnels"], "enter_vault": ["climb down into the vault", "explore the vault chambers"],
    "enter_troll_mines": ["climb down to the troll mines", "explore the troll lairs"], "enter_fire_realm": ["climb down to the fire realm", "explore the scorching realm"],
    "enter_ice_realm": ["climb down to the ice realm", "explore the frozen wastes"], "enter_graveyard": ["climb down to the graveyard", "explore the graveyard crypts"],
    "defeat_troll": ["overpower a troll", "best a troll in combat"], "defeat_knight": ["overpower a knight", "unhorse a knight"],
    "defeat_kobold": ["overpower a kobold", "rout a kobold"], "defeat_lizard": ["overpower a lizard", "rout a lizard"],
    "defeat_pigman": ["overpower a pigman", "rout a pigman"], "defeat_necromancer": ["overthrow the necromancer", "banish the necromancer"],
    "drink_potion": ["swig a potion", "gulp down a potion"], "open_chest": ["crack open a chest", "unlatch a chest"],
    "eat_snail": ["gobble up a snail", "chew on a snail"], "eat_bat": ["gobble up a bat", "roast and eat a bat"],
}

# A sixth register: the town (trades, civic life, markets), for openers, purposes and sign-offs.
TOWN_PURPOSES = [
    " so the notary can witness it", " for the magistrate's inspection", " to satisfy the building regulations", " as a model for the new townhall",
    " so the cooper can stack barrels", " for the saddler's yard", " so the chandler can sell candles there", " to advertise the tavern",
    " as a signpost for the apothecary", " so the barber has a queue line", " for the fishmonger's stall", " to shelter the grocer's produce",
    " as a kiosk for the newspaper seller", " so the locksmith can show his wares", " to brighten up the slums", " for the charity bazaar",
    " so the aldermen can convene", " to honour the retiring constable", " for the firefighters' drill", " to mark the sewer grate",
    " so the street sweepers have a depot", " for the tram drivers", " to welcome the delegates", " as a landmark for the census takers",
    " to mark the finish of the marathon", " so the cheering fans have a place to stand", " for the farmers' cooperative", " to inspire the town planners",
    " as the centrepiece of the plaza", " so the flower sellers have a spot", " to house the town crier", " for the mayor's speech",
    " to impress the auditors", " so the bankers approve the mortgage", " as a down payment on our debt", " for the philanthropists' gala",
]
TOWN_OPENERS = [
    "per the town charter, ", "according to the mayor's memo, ", "as stated in the contract, ", "following yesterday's meeting, ",
    "after much deliberation, ", "after a long debate, ", "as agreed with the landlord, ", "as promised to the shopkeepers, ",
    "now that the paperwork is signed, ", "once the permits arrive, ", "while the clerks count the coins, ", "before the auditors knock, ",
    "breaking news: ", "attention please: ", "important notice: ", "reminder: ", "update from headquarters: ", "memo to the crew: ",
]
TOWN_ENCOURAGEMENTS = [
    " the paperwork is already filed.", " your wages will be paid on friday.", " the union supports you.", " the inspectors are lenient today.",
    " the shopkeepers will give you a discount afterwards.", " there is cake in the guildhall.", " the newspaper wants an interview afterwards.",
    " a statue in your honour is not out of the question.", " the town band will play when you finish.", " overtime is paid double.",
    " the foreman will sign off on it.", " keep the receipt.", " report any delays to the clerk.", " safety first.",
]

# A seventh register: myth and magic, games and pastimes, weather lore.
MYTH_PURPOSES = [
    " to ward off the banshee", " so the wizard's familiar can find home", " as a circle for the sorceress", " to bind the trickster spirit",
    " to appease the dragon sleeping under the hill", " so the unicorn returns to the meadow", " as a shrine to the moon goddess",
    " to seal the portal to the underworld", " to mark the ley line", " so the fairies dance there at midnight", " to honour the titans of old",
    " as a test set by the riddling sphinx", " to break the witch's curse", " to trap the mischievous imp", " so the griffin has a nest",
    " as a throne for the goblin king", " to fulfil the wish of the genie", " so the phoenix can be reborn", " to summon the rain spirits",
    " for a game of tag", " as goalposts for the football match", " to build a hopscotch court", " for the archery practice",
    " as a finish line for the sack race", " so the kids can play marbles", " for the tug of war", " as wickets for the cricket match",
    " for the skittles tournament", " as a hurdle for the steeplechase", " so the wrestlers have a ring", " for a round of croquet",
    " before the thunderheads gather", " while the drought lasts", " before the blizzard hits", " while the sleet holds off",
    " before the heatwave peaks", " while the hailstones melt", " before the gale picks up", " while the rainbow lasts",
]
MYTH_OPENERS = [
    "once upon a time, ", "legend has it: ", "the stars have aligned, so ", "the runes have spoken: ", "the tea leaves suggest: ",
    "the crystal ball shows this: ", "by the power vested in me, ", "as foretold by the seers, ", "while the dragon slumbers, ",
    "before the spell wears off, ", "while the enchantment holds, ", "as the thunder rumbles, ", "while the sun is shining, ",
    "before the drizzle turns to downpour, ", "as the temperature drops, ", "with the breeze picking up, ",
]
MYTH_ENCOURAGEMENTS = [
    " the runes favour you.", " the oracle smiles upon this plan.", " may the old gods guide your hands.", " a wizard is never late, and neither are you.",
    " the fairies are giggling, which is a good sign.", " the dragon will not wake if you are quiet.", " beware of goblin tricks.",
    " game on.", " may the best builder win.", " ready, set, go.", " no cheating, please.", " the referee is watching.",
    " the clouds look ominous.", " bring an umbrella.", " the thermometer says it is freezing.", " it is sweltering, so pace yourself.",
]

# An eighth register: the garrison, the infirmary and the monastery.
GARRISON_PURPOSES = [
    " so the sentries can stand guard", " as a rampart against the marauders", " for the cavalry drills", " to mark the rendezvous point",
    " so the quartermaster can store supplies", " as a barricade for the militia", " for the sergeant's morning inspection", " to confuse enemy spies",
    " so the heralds can announce the truce", " as a checkpoint on the frontier", " for the veterans' parade", " to train the infantry recruits",
    " so the infirmary has a quiet courtyard", " for the nurses' break", " to keep the convalescents in the sun", " as a splint rack for the surgeon",
    " so the physicians can collect herbs nearby", " to disinfect with sunlight", " for the midwives' guild", " as a stretcher station",
    " so the novices can contemplate silence", " for the monks' vespers", " to ring the abbey bells from", " as a cloister for the nuns",
    " so the friars can brew their ale", " to shelter the scriptorium", " for the hermits' retreat", " as a labyrinth for meditation",
    " so the pilgrims can leave candles", " to bless the harvest", " for the feast of lanterns", " as a reliquary for the saint's relics",
]
GARRISON_ENCOURAGEMENTS = [
    " at ease, soldier.", " dismissed once it is done.", " that is an order.", " march on.", " the regiment salutes you.",
    " the medic is on standby.", " bandages are in the satchel.", " peace be with you.", " the brothers will pray for your success.",
    " silence is golden.", " blessed are the patient.", " the abbot sends his regards.",
]
GARRISON_VOCATIVES = ["private, ", "corporal, ", "sergeant, ", "lieutenant, ", "cadet, ", "recruit, ", "brother monk, ", "sister nurse, ",
                      "healer, ", "physician, ", "herald, ", "quartermaster, ", "ensign, ", "marshal, ", "constable, "]

# A ninth register: travel, commerce routes and the river valley.
VALLEY_PURPOSES = [
    " so the barge crews can unload cargo", " for the caravanserai", " as a waystation on the silk road", " to mark the customs house",
    " so the camel drivers can water their beasts", " for the spice traders", " as a milestone on the highway", " to help the cartographers' apprentices",
    " so the stagecoach can change horses", " for the postal relay", " as a tollgate for the turnpike", " to mark the halfway inn",
    " so the ferrymen can signal across the estuary", " for the eel catchers", " as a weir for the millrace", " to divert the irrigation ditch",
    " so the washerwomen have a bench", " for the reed cutters", " as a landing for the punts", " to mark the floodplain",
    " so the otter hunters can rest", " for the willow weavers", " as a footbridge support", " to watch the kingfishers",
]
VALLEY_ENCOURAGEMENTS = [
    " the river is running gently today.", " the caravan will wait for you.", " the road is long but pleasant.", " pack light.",
    " the toll is already paid.", " the kingfishers are out, so keep your eyes open.", " the barges are moored safely.",
    " the valley is peaceful this season.", " the ferry leaves at sunset.", " the milestones will guide you.",
]

# A tenth register: the workshop (tools of every trade, as the speaker's aside).
WORKSHOP_OPENERS = [
    "while i sharpen the chisels, ", "while i oil the hinges, ", "while the glue dries, ", "while the varnish sets, ", "while the mortar cures, ",
    "while i sort the nails, ", "while the bellows rest, ", "while the anvil cools, ", "while i mend the bucket, ", "while i grease the axles, ",
    "while the paint dries, ", "while i tune the lute, ", "while i darn the socks, ", "while i knead the dough, ", "while i polish the brass, ",
    "while i sweep the porch, ", "while i patch the roof, ", "while i stitch the saddle, ", "while i rake the leaves, ", "while i prune the hedges, ",
]
WORKSHOP_PURPOSES = [
    " so the plumb line has something to hang from", " to square up the workshop", " to test the new spirit level", " so the sawhorses stand level",
    " as a jig for the joiners", " to steady the lathe", " for the riveters", " as a rack for the trowels", " so the stonecutters can check their angles",
    " to prop up the scaffolding", " for the plasterers", " as a marker for the bricklayers", " so the roofers can stack shingles",
    " to align the rafters", " for the stained glass workshop", " as a bench for the upholsterers", " to keep the sawdust contained",
]

# ----------------------------------------------------------------------------- assembly
# Each slot is its base list followed by these extensions, in this order (the shipped data depends on
# it; ``_extend`` keeps the held-out last entry last and drops repeats).
_LIST_EXTENSIONS = (
    (PURPOSES, [MORE_PURPOSES, EVEN_MORE_PURPOSES, STORY_PURPOSES, CHRONICLE_PURPOSES, ALMANAC_PURPOSES, VOYAGE_PURPOSES,
        WILDERNESS_PURPOSES, TOWN_PURPOSES, MYTH_PURPOSES, GARRISON_PURPOSES, VALLEY_PURPOSES, WORKSHOP_PURPOSES]),
    (OPENERS, [MORE_OPENERS, STORY_OPENERS, CHRONICLE_OPENERS, ALMANAC_OPENERS, TOWN_OPENERS, MYTH_OPENERS, WORKSHOP_OPENERS]),
    (ENCOURAGEMENTS, [MORE_ENCOURAGEMENTS, STORY_ENCOURAGEMENTS, CHRONICLE_ENCOURAGEMENTS, ALMANAC_ENCOURAGEMENTS,
        VOYAGE_ENCOURAGEMENTS, WILDERNESS_ENCOURAGEMENTS, TOWN_ENCOURAGEMENTS, MYTH_ENCOURAGEMENTS, GARRISON_ENCOURAGEMENTS,
        VALLEY_ENCOURAGEMENTS]),
    (VOCATIVES, [STORY_VOCATIVES, WORK_VOCATIVES, GARRISON_VOCATIVES]),
    (ADVERBS, [MORE_ADVERBS, MANNER_ADVERBS, MORE_MANNER_ADVERBS]),
    (POLITE, [MORE_POLITE]),
    (CLOSERS, [CLOSING_PHRASES]),
    (PLACE_VERBS, [MORE_PLACE_VERBS]),
    (BUILD_VERBS, [MORE_BUILD_VERBS]),
    (COLLECT_VERBS, [MORE_COLLECT_VERBS]),
)
_TABLE_EXTENSIONS = ((ADJECTIVES, MORE_ADJECTIVES), (ACHIEVEMENTS, MORE_ACHIEVEMENT_WORDS), (BLOCKS, MORE_BLOCK_WORDS),
                     (FULL_ACHIEVEMENTS, MORE_FULL_ACHIEVEMENT_WORDS))
for _words, _extras in _LIST_EXTENSIONS:
    for _extra in _extras:
        _extend(_words, _extra)
for _table, _more in _TABLE_EXTENSIONS:
    for _name, _extra in _more.items():
        _extend(_table[_name], _extra)
