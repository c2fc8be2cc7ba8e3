/**
 * The API's limits are in characters (spec 01 "name | up to 255 characters", spec 03 "orderNumber | 1-255
 * characters"): code points, so an emoji or a CJK extension character counts once, not as the two UTF-16 code units
 * of `String.length`. Shared by the PLM import and the ERP order push.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (let at = 0; at < text.length; at++) {
    const unit = text.charCodeAt(at);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(at + 1);
      if (next >= 0xdc00 && next <= 0xdfff) at++;
    }
    count++;
  }
  return count;
}
