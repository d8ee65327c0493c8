/**
 * Built-in, site-independent vocabularies for fields whose name says what they hold
 * (colour, material, gender). Used when the catalog supplies no values, and as a fallback
 * next to the catalog's own values. Sources: CSS/X11 basic colour names, common retail
 * material names, and retail gender labels.
 */

/** Common colour names (CSS basic colours plus frequent retail colour words). */
export const COLOURS = [
  'black', 'white', 'red', 'blue', 'green', 'yellow', 'orange', 'purple', 'pink', 'brown', 'grey', 'gray',
  'silver', 'gold', 'beige', 'navy', 'navy blue', 'khaki', 'ivory', 'cream', 'tan', 'maroon', 'burgundy',
  'teal', 'turquoise', 'aqua', 'violet', 'lavender', 'magenta', 'olive', 'charcoal', 'bronze', 'copper',
  'clear', 'transparent', 'multicolor', 'multicolored', 'multi-color', 'assorted', 'rose gold', 'dark blue',
  'light blue', 'sky blue', 'royal blue', 'dark green', 'light green', 'army green', 'dark brown', 'light grey',
  'light gray', 'dark grey', 'dark gray', 'camo', 'camouflage', 'chrome', 'mahogany', 'walnut', 'cherry', 'oak',
];

/** Common material names. */
export const MATERIALS = [
  'stainless steel', 'steel', 'aluminum', 'aluminium', 'plastic', 'wood', 'wooden', 'glass', 'ceramic', 'porcelain',
  'cotton', 'polyester', 'nylon', 'spandex', 'leather', 'rubber', 'silicone', 'vinyl', 'paper', 'cardboard', 'metal',
  'iron', 'cast iron', 'copper', 'brass', 'titanium', 'carbon fiber', 'carbon', 'fiberglass', 'polycarbonate',
  'polypropylene', 'polyethylene', 'acrylic', 'bamboo', 'wool', 'silk', 'linen', 'denim', 'foam', 'mesh', 'fabric',
  'canvas', 'resin', 'stone', 'marble', 'granite', 'melamine', 'stoneware', 'bone china', 'crystal', 'sterling silver',
  'silver', 'gold', 'platinum', 'tungsten', 'lycra', 'abs', 'pvc', 'pu', 'eva', 'tpu', 'alloy', 'zinc alloy',
];

/** Gender / audience labels as written in titles. */
export const GENDERS = [
  "men's", 'mens', 'men', "women's", 'womens', 'women', 'unisex', "boys'", "boy's", 'boys', "girls'", "girl's", 'girls',
  'male', 'female', 'man', 'woman', 'ladies', "ladies'", 'kids', "kid's", 'children', 'baby', 'toddler', 'adult', 'adults',
];
