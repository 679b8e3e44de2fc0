#!/usr/bin/env node
// The `latchkey` executable: runs the compiled CLI (built by `npm ci` through the prepare script).
import '../dist/cli/main.js';
