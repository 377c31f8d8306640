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
