"""The default word lists: gendered words and the 80 COCO categories with synonyms.

``DIRECTIONAL_GROUP_WORDS`` are the gendered words of Wang & Russakovsky (ICML 2021,
captioning section; the same lists as their released caption parser): a caption
names a man when it holds one of man, boy, gentleman, male, men, and a woman when
it holds one of woman, girl, lady, female, women. They are deliberately short
(no plurals of boy, girl, lady, no pronouns), so that the parser's counts match
the paper's.

``LIC_GENDER_WORDS`` are the words that LIC masks (Hirota, Nakashima & Garcia,
CVPR 2022): a longer list with plurals, family and job words and pronouns,
because a masked caption must not give the gender away through any of them.

``COCO_TASK_WORDS`` maps each COCO category (named as in the bundled COCO
labels: underscores between words) to the words and phrases a caption uses for
it: the name, its plural and common synonyms (bike, sofa, fridge, ...). The
lists are biasamp's own; every entry is a whole-word phrase.
"""

from __future__ import annotations

__all__ = ["COCO_TASK_WORDS", "DIRECTIONAL_GROUP_WORDS", "LIC_GENDER_WORDS"]

DIRECTIONAL_GROUP_WORDS: dict[str, list[str]] = {
    "man": ["man", "boy", "gentleman", "male", "men"],
    "woman": ["woman", "girl", "lady", "female", "women"],
}

LIC_GENDER_WORDS: dict[str, list[str]] = {
    "man": [
        "man", "men", "male", "males", "boy", "boys", "gentleman", "gentlemen", "father",
        "fathers", "dad", "uncle", "husband", "actor", "prince", "waiter", "son", "sons",
        "brother", "brothers", "guy", "guys", "emperor", "emperors", "dude", "dudes",
        "cowboy", "cowboys", "he", "his", "him", "himself", "king", "kings", "businessman",
        "businessmen", "grandfather", "boyfriend", "mr",
    ],
    "woman": [
        "woman", "women", "female", "females", "girl", "girls", "lady", "ladies", "mother",
        "mothers", "mom", "aunt", "wife", "actress", "princess", "waitress", "daughter",
        "daughters", "sister", "sisters", "queen", "queens", "she", "her", "hers", "herself",
        "businesswoman", "businesswomen", "grandmother", "girlfriend", "pregnant", "mrs",
    ],
}  # fmt: skip

COCO_TASK_WORDS: dict[str, list[str]] = {
    "person": ["person", "persons", "people", "human", "humans", "child", "children", "kid",
               "kids", "baby", "babies", "toddler", "toddlers"],
    "bicycle": ["bicycle", "bicycles", "bike", "bikes"],
    "car": ["car", "cars", "automobile", "automobiles", "taxi", "taxis", "sedan", "sedans"],
    "motorcycle": ["motorcycle", "motorcycles", "motorbike", "motorbikes", "motor bike",
                   "motor bikes", "moped", "mopeds"],
    "airplane": ["airplane", "airplanes", "plane", "planes", "jet", "jets", "aircraft",
                 "airliner", "airliners", "aeroplane", "aeroplanes", "jetliner", "jetliners"],
    "bus": ["bus", "buses", "busses"],
    "train": ["train", "trains", "locomotive", "locomotives"],
    "truck": ["truck", "trucks", "lorry", "lorries"],
    "boat": ["boat", "boats", "ship", "ships", "sailboat", "sailboats", "kayak", "kayaks",
             "canoe", "canoes", "yacht", "yachts", "ferry", "ferries"],
    "traffic_light": ["traffic light", "traffic lights", "stop light", "stop lights",
                      "stoplight", "stoplights", "traffic signal", "traffic signals"],
    "fire_hydrant": ["fire hydrant", "fire hydrants", "hydrant", "hydrants"],
    "stop_sign": ["stop sign", "stop signs"],
    "parking_meter": ["parking meter", "parking meters"],
    "bench": ["bench", "benches"],
    "bird": ["bird", "birds", "pigeon", "pigeons", "seagull", "seagulls", "gull", "gulls",
             "duck", "ducks", "goose", "geese", "parrot", "parrots", "swan", "swans"],
    "cat": ["cat", "cats", "kitten", "kittens", "kitty", "kitties"],
    "dog": ["dog", "dogs", "puppy", "puppies", "pup", "pups"],
    "horse": ["horse", "horses", "pony", "ponies", "foal", "foals"],
    "sheep": ["sheep", "lamb", "lambs"],
    "cow": ["cow", "cows", "cattle", "bull", "bulls", "calf", "calves", "oxen"],
    "elephant": ["elephant", "elephants"],
    "bear": ["bear", "bears"],
    "zebra": ["zebra", "zebras"],
    "giraffe": ["giraffe", "giraffes"],
    "backpack": ["backpack", "backpacks", "back pack", "back packs", "knapsack", "knapsacks"],
    "umbrella": ["umbrella", "umbrellas", "parasol", "parasols"],
    "handbag": ["handbag", "handbags", "hand bag", "hand bags", "purse", "purses"],
    "tie": ["tie", "ties", "necktie", "neckties"],
    "suitcase": ["suitcase", "suitcases", "suit case", "suit cases", "luggage"],
    "frisbee": ["frisbee", "frisbees"],
    "skis": ["skis"],
    "snowboard": ["snowboard", "snowboards"],
    "sports_ball": ["ball", "balls", "football", "footballs", "basketball", "basketballs",
                    "volleyball", "volleyballs", "softball", "softballs"],
    "kite": ["kite", "kites"],
    "baseball_bat": ["baseball bat", "baseball bats", "bat", "bats"],
    "baseball_glove": ["baseball glove", "baseball gloves", "glove", "gloves", "mitt", "mitts"],
    "skateboard": ["skateboard", "skateboards", "skate board", "skate boards"],
    "surfboard": ["surfboard", "surfboards", "surf board", "surf boards"],
    "tennis_racket": ["tennis racket", "tennis rackets", "tennis racquet", "tennis racquets",
                      "racket", "rackets", "racquet", "racquets"],
    "bottle": ["bottle", "bottles"],
    "wine_glass": ["wine glass", "wine glasses", "wineglass", "wineglasses"],
    "cup": ["cup", "cups", "mug", "mugs"],
    "fork": ["fork", "forks"],
    "knife": ["knife", "knives"],
    "spoon": ["spoon", "spoons"],
    "bowl": ["bowl", "bowls"],
    "banana": ["banana", "bananas"],
    "apple": ["apple", "apples"],
    "sandwich": ["sandwich", "sandwiches", "burger", "burgers", "hamburger", "hamburgers"],
    "orange": ["orange", "oranges"],
    "broccoli": ["broccoli"],
    "carrot": ["carrot", "carrots"],
    "hot_dog": ["hot dog", "hot dogs", "hotdog", "hotdogs"],
    "pizza": ["pizza", "pizzas"],
    "donut": ["donut", "donuts", "doughnut", "doughnuts"],
    "cake": ["cake", "cakes"],
    "chair": ["chair", "chairs"],
    "couch": ["couch", "couches", "sofa", "sofas"],
    "potted_plant": ["potted plant", "potted plants", "houseplant", "houseplants",
                     "house plant", "house plants", "plant", "plants"],
    "bed": ["bed", "beds"],
    "dining_table": ["dining table", "dining tables", "table", "tables"],
    "toilet": ["toilet", "toilets"],
    "tv": ["tv", "tvs", "television", "televisions"],
    "laptop": ["laptop", "laptops"],
    "mouse": ["mouse", "mice"],
    "remote": ["remote", "remotes", "remote control", "remote controls", "controller",
               "controllers"],
    "keyboard": ["keyboard", "keyboards"],
    "cell_phone": ["cell phone", "cell phones", "cellphone", "cellphones", "phone", "phones",
                   "smartphone", "smartphones", "mobile phone", "mobile phones"],
    "microwave": ["microwave", "microwaves"],
    "oven": ["oven", "ovens", "stove", "stoves"],
    "toaster": ["toaster", "toasters"],
    "sink": ["sink", "sinks"],
    "refrigerator": ["refrigerator", "refrigerators", "fridge", "fridges"],
    "book": ["book", "books"],
    "clock": ["clock", "clocks"],
    "vase": ["vase", "vases"],
    "scissors": ["scissors"],
    "teddy_bear": ["teddy bear", "teddy bears", "teddy", "teddies"],
    "hair_drier": ["hair drier", "hair driers", "hair dryer", "hair dryers", "hairdryer",
                   "hairdryers", "blow dryer", "blow dryers"],
    "toothbrush": ["toothbrush", "toothbrushes"],
}  # fmt: skip
