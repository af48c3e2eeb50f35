/**
 * Waiting for the operator's stop signal in the long-running commands
 * (`registry serve`, `serve`): the first SIGINT or SIGTERM starts a clean stop,
 * a second one asks to cut what is left.
 */

/** Resolves on the first SIGINT or SIGTERM; a second one cuts open connections at once. */
export function untilSignal(onSecond: () => void): { done: Promise<string>; dispose(): void } {
  let count = 0;
  let resolve: (signal: string) => void = () => undefined;
  const done = new Promise<string>((r) => (resolve = r));
  const onSignal = (signal: NodeJS.Signals) => {
    count += 1;
    if (count === 1) resolve(signal);
    else onSecond();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    done,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
