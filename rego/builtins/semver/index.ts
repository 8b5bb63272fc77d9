/** The semver family: semver.is_valid and semver.compare (lib/semver). */
export { register } from './semver.js';
