import { Option } from 'commander';

/** The -c option every command takes (its own module: a command may name it without loading the config code). */
export const configOption = () =>
  new Option('-c, --config <file>', 'config file (default: $RAGSYNC_CONFIG, else ./ragsync.jsonc, ./ragsync.json or config/ragsync.json)');
