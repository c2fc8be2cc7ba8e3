import { randomBytes } from 'node:crypto';
import type { CatalogueDeps } from './deps';

/** A CDN-like address; the name is random so clients cannot build the destination from it (as the spec warns). */
export const newQrCodeUrl = (): string =>
  `https://qr.trace-sandbox.invalid/v1/${randomBytes(12).toString('hex')}.svg`;

/** Generation is asynchronous: the url appears after `qrDelayMs`, once, and never changes afterwards. */
export function scheduleQrCode(deps: CatalogueDeps, productId: string, minDelayMs = 0): void {
  deps.ctx.schedule(Math.max(minDelayMs, deps.ctx.settings.qrDelayMs), () => {
    const product = deps.store().get(productId);
    if (product && product.qrCodeUrl === null) product.qrCodeUrl = newQrCodeUrl();
  });
}
