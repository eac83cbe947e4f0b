// The specs' dynalite is the emulator's (emulator/dynalite.ts).
export { startDynalite, type DynaliteServer } from '../../emulator/dynalite.js';
