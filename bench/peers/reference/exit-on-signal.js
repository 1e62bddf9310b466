// Preloaded into the reference server (which has no signal handling of its own) so that SIGTERM ends it
// through process.exit: --cpu-prof then writes its profile, as it does for the other peers.
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => process.exit(0));
