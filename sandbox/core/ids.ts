import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID (48-bit time + 80-bit randomness, Crockford base32), monotonic within one process. */
export function createUlidFactory(now: () => number): () => string {
  let lastTime = -1;
  let lastRandom = new Uint8Array(10);
  return () => {
    const time = now();
    if (time === lastTime) {
      for (let i = lastRandom.length - 1; i >= 0; i--) {
        const byte = lastRandom[i] ?? 0;
        if (byte < 255) {
          lastRandom[i] = byte + 1;
          break;
        }
        lastRandom[i] = 0;
      }
    } else {
      lastTime = time;
      lastRandom = new Uint8Array(randomBytes(10));
    }
    let timePart = '';
    let t = time;
    for (let i = 0; i < 10; i++) {
      timePart = CROCKFORD[t % 32] + timePart;
      t = Math.floor(t / 32);
    }
    let bits = 0n;
    for (const byte of lastRandom) bits = (bits << 8n) | BigInt(byte);
    let randomPart = '';
    for (let i = 0; i < 16; i++) {
      randomPart = CROCKFORD[Number(bits & 31n)] + randomPart;
      bits >>= 5n;
    }
    return timePart + randomPart;
  };
}
