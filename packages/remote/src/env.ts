/** umbel's own environment, as the composition root passes it down (ssh's, the control dir's). */
export type RemoteEnv = Readonly<Record<string, string | undefined>>;
