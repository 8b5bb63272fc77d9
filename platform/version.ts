import pkg from '../package.json' with { type: 'json' };

/** The Steward version every health answer carries. */
export const VERSION: string = pkg.version;
