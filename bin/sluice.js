#!/usr/bin/env node
// The `sluice` command. TypeScript runs through tsx's loader, so a checkout needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
