/** A setting that stops the process from starting (bad value, missing secret, a key that does not open the data). */
export class ConfigError extends Error {}
