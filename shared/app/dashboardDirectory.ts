import { fileURLToPath } from 'node:url';

/** Where `npm run build` (Vite, web/vite.config.ts) writes the dashboard, which the service serves at `/`. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));
