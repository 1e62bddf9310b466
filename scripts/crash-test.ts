// Crash durability, long run: SIGKILL the server N times under concurrent creates.
// Usage: npx node scripts/crash-test.ts [kills=20] [seed=random] [writers=8]
import { runCrashRounds } from '../test/reliability/crash-run.ts';
import { randomSeed } from '../test/reliability/seeded-random.ts';

const [kills = '20', seed = String(randomSeed()), writers = '8'] = process.argv.slice(2);
console.log(`crash test: ${kills} kills, seed ${seed}, ${writers} writers`);
const figures = await runCrashRounds({
  kills: Number(kills),
  seed: Number(seed),
  writers: Number(writers),
  log: (message) => console.log(message),
});
console.log(JSON.stringify(figures));
console.log('ok: every acknowledged create survived with identical content; integrity_check ok; keyed retries exist once');
