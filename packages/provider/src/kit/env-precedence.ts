/** Variables a CLI must not get together (EnvFacts' `reconcile`, as data). Pure. */

/** The `reconcile` of `rules` (winner → losers): when a winner is set and not empty, its losers are dropped from a copy of the env. */
export function envPrecedence(rules: Readonly<Record<string, readonly string[]>>): (env: Readonly<Record<string, string>>) => Record<string, string> {
  return (env) => {
    const result: Record<string, string> = { ...env };
    for (const [winner, losers] of Object.entries(rules)) {
      if (!result[winner]) continue;
      for (const loser of losers) delete result[loser];
    }
    return result;
  };
}
