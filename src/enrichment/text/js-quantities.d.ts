/**
 * Minimal typing of the `js-quantities` package (no bundled types): parse a quantity string
 * ("12 floz", "3.5 kg") and convert it to another unit of the same kind. Throws on unknown
 * units or incompatible kinds (upstream behaviour).
 */
declare module 'js-quantities' {
  interface Quantity {
    scalar: number;
    kind(): string;
    to(unit: string): Quantity;
  }
  function Qty(value: string): Quantity;
  export default Qty;
}
