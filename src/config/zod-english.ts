// zod/mini sets no locale: without this its issues read "Invalid input". The English one is what
// classic zod (loaded by the MCP and AI SDK tool schemas) installs too, so messages match either way.
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());
