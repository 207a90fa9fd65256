// The tests create and drop their databases as the bench does: one bounded statement on its own connection.
export { adminQuery } from '../../bench/scratch-db.js';
