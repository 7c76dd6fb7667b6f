// tint_worker.mjs compiles WGSL files with Tint (Dawn's node binding, null
// backend) in this process and prints `file:line:col: tint: type: message`
// for each message, then a line starting doneMark. check.mjs runs it on a
// few files at a time: Dawn's binding crashes now and then, and how often
// depends on the very text of the script that loads it (a comment added
// to check.mjs made it crash every time), so this script stays small.
//
// Usage: node tint_worker.mjs [-subgroup-matrix] FILE.wgsl...
// -subgroup-matrix asks for chromium-experimental-subgroup-matrix (behind
// Dawn's allow_unsafe_apis toggle) besides shader-f16 and subgroups.

import { readFileSync } from 'node:fs';

const doneMark = '#tint_worker done ';

async function main() {
	let files = process.argv.slice(2);
	const sm = files[0] === '-subgroup-matrix';
	if (sm) files = files.slice(1);
	const { create, globals } = await import('webgpu');
	Object.assign(globalThis, globals);
	const gpu = create(sm ? ['backend=null', 'enable-dawn-features=allow_unsafe_apis'] : ['backend=null']);
	const adapter = await gpu.requestAdapter();
	if (!adapter) throw new Error('tint: no adapter on the null backend');
	const wanted = sm ? ['shader-f16', 'subgroups', 'chromium-experimental-subgroup-matrix'] : ['shader-f16', 'subgroups'];
	const device = await adapter.requestDevice({ requiredFeatures: wanted.filter((f) => adapter.features.has(f)) });
	let failed = false;
	for (const file of files) {
		// The error scope keeps Dawn from reporting the error as uncaptured.
		device.pushErrorScope('validation');
		const module = device.createShaderModule({ code: readFileSync(file, 'utf8') });
		const info = await module.getCompilationInfo();
		await device.popErrorScope();
		for (const m of info.messages) {
			// one line per message: overload lists span several
			console.log(`${file}:${m.lineNum}:${m.linePos}: tint: ${m.type}: ${m.message.replace(/\s*\n\s*/g, ' ').trim()}`);
			failed = failed || m.type === 'error';
		}
	}
	device.destroy();
	process.stdout.write(`${doneMark}${failed ? 1 : 0}\n`);
	process.exit(failed ? 1 : 0);
}

main().catch((e) => {
	console.error(`tint_worker.mjs: ${e.stack ?? e}`);
	process.exit(2);
});
