/** FNV-1a over UTF-16 code units, 64 bits as 16 hex digits: pure, so workflow code (no node:crypto) can use it. */
export function shortHash(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
