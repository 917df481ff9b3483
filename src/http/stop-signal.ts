// The end of a serving process: the first SIGTERM or SIGINT.

/**
 * Resolves with the first SIGTERM or SIGINT. `repeat: 'default'` leaves a repeated signal its
 * default action, so that a second Ctrl-C ends a stuck shutdown of a single process; 'ignore' keeps
 * catching it: in a cluster each Ctrl-C reaches a worker twice (from the terminal and forwarded by
 * the primary), and the second must not kill a worker that is finishing its requests.
 */
export function stopSignal(repeat: 'default' | 'ignore'): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      if (repeat === 'default') process.once(signal, () => resolve(signal));
      else process.on(signal, () => resolve(signal));
    }
  });
}
