/**
 * Common product words a shopper writes that no category name uses, mapped to the word(s) a
 * retail taxonomy names the kind with ("earbuds" → headphones, "trekking poles" → hiking poles,
 * "rucksack" → backpacks). Where the words come from: everyday English retail vocabulary
 * (synonyms and hypernyms as a general dictionary gives them), written by hand from general
 * knowledge; not read from, nor tuned on, any evaluation title or catalog. Each general word is
 * a word some Google product taxonomy node name uses. ./lexicon merges these with its own kinds
 * (same form: general word(s) → the kinds of product they cover); see
 * docs/evaluation-taxonomy.md (general-language knowledge).
 */
export const GENERAL_KINDS: Readonly<Record<string, readonly string[]>> = {
  headphones: ['earbud', 'earbuds', 'earphone', 'earphones', 'earpiece', 'in-ear monitor', 'ear buds', 'headphone'],
  'hiking poles': ['trekking pole', 'trekking poles', 'walking pole', 'walking poles', 'nordic walking pole', 'trekking stick', 'hiking stick'],
  backpacks: ['rucksack', 'knapsack', 'daypack', 'bookbag', 'school bag'],
  'coats jackets': ['parka', 'anorak', 'windbreaker', 'puffer', 'raincoat', 'overcoat', 'trench coat', 'bomber jacket', 'gilet'],
  sweaters: ['pullover', 'cardigan', 'jumper', 'knitwear', 'turtleneck'],
  handbags: ['purse', 'tote', 'tote bag', 'clutch bag', 'crossbody', 'crossbody bag', 'shoulder bag', 'satchel', 'hobo bag'],
  wallets: ['billfold', 'cardholder', 'card holder', 'money clip'],
  necklaces: ['pendant', 'choker', 'chain necklace', 'locket'],
  bracelets: ['bangle', 'cuff bracelet'],
  earrings: ['ear studs', 'stud earring', 'hoop earrings', 'ear cuff'],
  dresses: ['gown', 'sundress', 'maxi dress', 'midi dress', 'frock'],
  flashlights: ['torch', 'torchlight'],
  'water bottles': ['flask', 'canteen', 'sports bottle', 'drinking bottle'],
  'skillets frying pans': ['skillet', 'frying pan', 'fry pan', 'saute pan', 'griddle pan'],
  'kitchen knives': ['chef knife', "chef's knife", 'santoku', 'paring knife', 'bread knife', 'cleaver'],
  'perfume cologne': ['eau de parfum', 'eau de toilette', 'parfum'],
  'lotion moisturizer': ['face cream', 'moisturiser', 'body lotion', 'body butter', 'hand cream', 'day cream', 'night cream'],
  'stuffed animals': ['plush', 'plushie', 'teddy bear', 'soft toy', 'cuddly toy'],
  'video game consoles': ['game console', 'games console', 'gaming console'],
  'computer monitors': ['pc monitor', 'gaming monitor', 'lcd monitor'],
  'mobile phones': ['mobile phone', 'android phone'],
  'tablet computers': ['android tablet', 'drawing tablet'],
  speakers: ['soundbar', 'sound bar', 'boombox', 'loudspeaker', 'bluetooth speaker'],
  watches: ['wristwatch', 'smartwatch', 'smart watch', 'chronograph'],
  suitcases: ['carry-on', 'trolley case', 'hardside luggage'],
  'sleeping bags': ['sleeping bag', 'mummy bag'],
  mugs: ['coffee mug', 'tea mug', 'travel mug'],
  toothpaste: ['dental cream', 'tooth paste'],
  pillows: ['bed pillow'],
  blankets: ['throw blanket', 'fleece blanket'],
  rugs: ['carpet', 'area rug', 'doormat'],
  lamps: ['desk lamp', 'table lamp', 'floor lamp', 'reading lamp', 'nightlight'],
  skirts: ['miniskirt', 'maxi skirt', 'pencil skirt'],
  'coffee makers espresso machines': ['coffee machine', 'coffee maker', 'espresso maker', 'french press', 'moka pot'],
};
