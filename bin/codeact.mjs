#!/usr/bin/env node
// The CLI entry: runs the built JS (npm ci / npm run build produce dist/).
import { main } from '../dist/cli/main.js'

process.exitCode = await main(process.argv.slice(2))
