import type { ChaosOptions } from './scenario';
import { NO_SLOW_FAULTS, type SlowFaults } from './slow-proxy';

/** One stretch of the chaos run: what the sandbox injects, and what the slow proxy in front of it does. */
export interface Phase {
  name: string;
  sandbox: Record<string, unknown>;
  proxy: SlowFaults;
}

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** The fault mix; each phase is applied for a stretch of requests, in a seeded order. */
export function phases(options: ChaosOptions, random: () => number): Phase[] {
  const { apiTimeoutMs } = options;
  const delayMs = apiTimeoutMs + 1_500;
  const seed = () => Math.floor(random() * 2 ** 31);
  const [burstLow, burstHigh] = options.burst429;
  return [
    { name: '5xx', sandbox: { serverErrorRate: 0.1, seed: seed() }, proxy: NO_SLOW_FAULTS },
    {
      name: '429 burst',
      sandbox: { burst429: burstLow + Math.floor(random() * (burstHigh - burstLow + 1)) },
      proxy: NO_SLOW_FAULTS,
    },
    {
      name: 'drop after commit',
      sandbox: { dropAfterCommitRate: 0.15, methods: WRITES, seed: seed() },
      proxy: NO_SLOW_FAULTS,
    },
    {
      name: 'slow write, commits late',
      sandbox: {},
      proxy: { commitLateRate: 0.2, answerLateRate: 0, delayMs, methods: WRITES },
    },
    {
      name: 'slow answer after commit',
      sandbox: {},
      proxy: { commitLateRate: 0, answerLateRate: 0.2, delayMs, methods: [...WRITES, 'GET'] },
    },
    {
      name: 'slow reads',
      sandbox: { latencyMs: apiTimeoutMs + 500, methods: ['GET'] },
      proxy: NO_SLOW_FAULTS,
    },
    {
      name: 'mixed',
      sandbox: { serverErrorRate: 0.04, dropAfterCommitRate: 0.05, burst429: burstLow, seed: seed() },
      proxy: { commitLateRate: 0.05, answerLateRate: 0.05, delayMs, methods: WRITES },
    },
  ];
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
