import pino from 'pino';
import { Lifecycle } from '../../worker/lifecycle';

// `npm start` runs the stack; Ctrl-C there sends SIGINT to the terminal's whole process group, and npm relays it
// to its child as well: the stack gets it twice, a millisecond apart (seen in a real run's log).

function sigintHandler(): (signal: NodeJS.Signals) => void {
  const handler = process.listeners('SIGINT').at(-1);
  if (!handler) throw new Error('no SIGINT listener');
  return handler as (signal: NodeJS.Signals) => void;
}

describe('Lifecycle on signals', () => {
  it('one Ctrl-C on `npm start` (SIGINT, then npm relaying it) stops every part gracefully, no forced exit', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const stopped: string[] = [];
    const lifecycle = new Lifecycle(pino({ level: 'silent' })).handleSignals();
    lifecycle.add('dev server', async () => void stopped.push('dev server'));
    lifecycle.add('worker', async () => void stopped.push('worker'));
    try {
      const onSignal = sigintHandler();
      onSignal('SIGINT');
      onSignal('SIGINT');
      await lifecycle.whenStopped();
      expect(exit).not.toHaveBeenCalled();
      expect(stopped).toEqual(['worker', 'dev server']);
    } finally {
      exit.mockRestore();
      await lifecycle.stop();
    }
  });

  it('a second Ctrl-C while the stop is still draining exits at once, with 130', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    let release = (): void => undefined;
    const lifecycle = new Lifecycle(pino({ level: 'silent' })).handleSignals();
    lifecycle.add('worker', () => new Promise<void>((resolve) => (release = resolve)));
    try {
      const onSignal = sigintHandler();
      onSignal('SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(exit).not.toHaveBeenCalled();
      onSignal('SIGINT');
      expect(exit).toHaveBeenCalledWith(130);
    } finally {
      release();
      exit.mockRestore();
      await lifecycle.stop();
    }
  });
});
