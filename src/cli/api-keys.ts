import type { Command } from 'commander';
import type { Io } from './io.js';

// PLACEHOLDER: filled in by its issue.
export function registerApiKeys(_program: Command, _io: Io): void {}
