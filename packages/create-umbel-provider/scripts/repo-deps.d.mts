/** The repository's root folder. */
export declare const REPO_ROOT: string;
/** Links our packages and the repository's tools into `<host>/node_modules` (see repo-deps.mjs). */
export declare function linkRepoDependencies(host: string): Promise<void>;
