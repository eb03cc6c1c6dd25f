// `@umbel/cli/bin` runs the umbel command when imported (the `umbel` package's bin does): it exports nothing.
export {};
