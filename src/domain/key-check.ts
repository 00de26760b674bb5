// The master key check: a known text sealed with the master key's `key-check` subkey and kept among the database's own
// facts (database_meta), so a start with another key stops before anything is read or written with the wrong key, and
// a copy to another engine can prove the key still opens what it copied.
export const KEY_CHECK = "master_key_check";
export const KEY_CHECK_TEXT = "caravan master key check";
