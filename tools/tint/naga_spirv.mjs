// naga_spirv.mjs translates one WGSL file to SPIR-V with naga-wasm (parse,
// validate, writeSpirv) and writes the words little-endian to OUT: a
// second opinion on what kc's WGSL means, compared with kc's own SPIR-V
// (emit/wgsl TestCoopMatNagaSPIRV).
//
// Usage: node naga_spirv.mjs IN.wgsl OUT.spv

import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
	console.error('usage: node naga_spirv.mjs IN.wgsl OUT.spv');
	process.exit(2);
}
const naga = await import('naga-wasm');
try {
	const module = naga.parseWgsl(readFileSync(input, 'utf8'));
	const info = naga.validate(module);
	const words = naga.writeSpirv(module, info, {});
	writeFileSync(output, Buffer.from(words.buffer, words.byteOffset, words.byteLength));
} catch (e) {
	console.error(`${input}: ${e.kind ?? 'error'}: ${String(e.formatted ?? e.message ?? e)}`);
	process.exit(1);
}
