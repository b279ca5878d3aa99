package mutate

import "time"

// A Technique is one of the project's checking methods, as a set of test
// runs (Go test binaries with a -test.run selection) or, for TLA+ mutants,
// the model checkers on the mutated module.
type Technique struct {
	Name  string // as in the kill matrix: rapid, porcupine, interleave, ...
	Parts []Part
	TLA   string // for TLA+ techniques: "tla-checker" or "tlc"
}

// A Part is one test binary's share of a technique.
type Part struct {
	Pkg  string // package directory relative to the module root, e.g. "impl"
	Tags string // build tags, e.g. "gmpcheck_hooks"
	Run  string // -test.run
	Skip string // -test.skip
	// Args are more arguments for the test binary, e.g. tla/'s -long.
	Args []string
	// TLADir: the tests read the TLA+ modules from $GMPCHECK_TLA_DIR, which
	// the harness points at the mutant's temporary tla/ directory.
	TLADir bool
}

func (p Part) binKey() string { return p.Pkg + "|" + p.Tags }

// Tests that cannot judge a mutant on an overlay are in no technique:
// TestSeededBugsCaught and the command tests build and run a second copy of
// the code with the go command, which sees the files on disk, not the overlay.

// The techniques. Each selects tests by name; the same test is in one
// technique only, so that the matrix says which method did the killing.
var (
	techUnit = Technique{Name: "unit", Parts: []Part{
		{Pkg: "impl", Run: "^(TestRunq(PutGetWrap|StealHalf|StealRunnext|StealOverflow|PutSlowSpillsHalf|EmptyNeverSpurious)|TestNilGRejected|TestNewRunqRejectsBadCapacity|TestGlobalRunqGetBatch|TestMutationKillRunq.*)$"},
	}}
	techRapid = Technique{Name: "rapid", Parts: []Part{
		{Pkg: "impl", Run: "^TestRunqMatchesSpec$"},
	}}
	techInterleave = Technique{Name: "interleave", Parts: []Part{
		{Pkg: "impl", Tags: "gmpcheck_hooks", Run: "^(TestHooksRunq(EmptyRecheck|GetCommitRace|StealCommitRace|PublishRace)|TestMutationKillHooks.*)$"},
		{Pkg: "internal/interleave", Tags: "gmpcheck_hooks", Run: "^(TestLinearizable|TestConservation|TestExploreScenarios|TestModelAgreesOnScenarios|TestChainedStealBatchInFlight)$"},
	}}
	techPorcupine = Technique{Name: "porcupine", Parts: []Part{
		{Pkg: "linearize", Run: "^(TestRealHistoriesLinearizable|TestPerturbedRoundsLinearizable|TestPutSecondEffectsObserved|TestRunnextStealAfterRefill|TestRecorderStealBatch)$"},
	}}
	techStress = Technique{Name: "stress", Parts: []Part{
		// TestStress at the long tier's 10^6 lifecycles and
		// TestRunqStressConservation at its 10^6 owner operations, as every
		// campaign before the default tier's became 2.5*10^5.
		{Pkg: "impl", Run: "^(TestRunqStressConservation|TestStress)$", Args: []string{"-impl.stress=1000000", "-impl.runqstress=1000000"}},
	}}
	techFuzzQueue = Technique{Name: "fuzz-runq", Parts: []Part{
		{Pkg: "fuzz", Run: "^(FuzzRunQueueOps|FuzzRapidRunQueue|TestRapidRunQueue)$"},
	}}
	techDriver = Technique{Name: "driver", Parts: []Part{
		{Pkg: "impl", Run: "^(TestDriver(MatchesSpec|MatchesSpecLong|SeesNeedSpinning|MatchesSpecPoll|MatchesSpecPollLong|NetpollBreakWalk|Go122InjectLostWakeup|Go126InjectWakesUp|NetpollInjectsMany|StopTheWorld|ReadyHandoff|ExitSyscallOldP)|TestSyscallBlockDriver|TestReleasesMatchSpec(Rapid)?)$"},
	}}
	techSched = Technique{Name: "sched-tests", Parts: []Part{
		{Pkg: "impl", Run: "^(TestParallelism|TestPingPongNoStarvation|TestYieldProgress|TestTightLoopPreempted|TestPreemptAfterSyscall|TestSyscallRetake|TestSched(SpawnTree|ParkReadyChain|Deadlock)|TestRetakeStoresPidleBeforeHandoff|TestHoldInSyscallRefusesAStaleSight|TestExitSyscallLateP|TestSysmonWokenBySyscallNotStartm|TestEventStream|TestSchedtrace|TestSchedtraceNeedSpinning|TestReadyMisuse|TestTaskUseAfterExitPanics|TestDeadlockAllParked|TestConfigErrors|TestTraceOffNoAllocs|TestEventCheck|TestReadyHandoff(RunsWaiterNext|NotParked)|TestMutationKillSched.*)$"},
	}}
	// techMechanisms are the runtime-style tests of the poller, timers,
	// stop-the-world, LockOSThread and procresize (the driver comparisons
	// of the same mechanisms are in techDriver).
	techMechanisms = Technique{Name: "mechanisms", Parts: []Part{
		{Pkg: "impl", Run: "^(TestHandoffKeepsPoller|TestLockOSThread(StaysOnItsM|Nested|UnderLoad)|TestLockedGExitEndsItsM|TestLockedDeadlock|TestSyscallBlockHandsOffP|TestNetpollBlockForIO|TestNetpollStress|TestNetpollReadyMisuse|TestSetProcs(UnderLoad|Quiescent)|TestStopTheWorld(Deadlock|Idle|Misuse)|TestGCFairness|TestTimerFairness|TestTimersStolen|TestNetpollBreak|TestNetpollBlockTimeout|TestNotStopped|TestSleepZero|TestStartMEmittedUnderLock|TestHandoffIdleEmittedUnderLock|TestConfigSetBug|TestMutationKillMech.*)$"},
	}}
	techWorkloads = Technique{Name: "workloads", Parts: []Part{
		{Pkg: "impl", Run: "^(TestBothSchedulers|TestWorkloads|TestMutationKillGM.*)$"},
	}}
	techFuzzSched = Technique{Name: "fuzz-sched", Parts: []Part{
		{Pkg: "fuzz", Run: "^(FuzzScheduler|FuzzSchedulerSpec|TestCheckSnapshotInvariants)$"},
	}}
	// techSpecUnit runs its quick tests (under 2 s together) before the
	// two that search thousands of states (TestCheckClausesFire, 7 s, and
	// TestStringsGolden): in file order the clause search came second, and
	// every kill by a later test waited for it.
	techSpecUnit = Technique{Name: "spec-unit", Parts: []Part{
		{Pkg: "spec", Run: "^(TestBoundsValidate|TestStepRejectsDisabledAction|TestKeyRoundTripAndValueSemantics|TestCheckRejectsBrokenStates|TestTerminalKinds|TestCompactQueuesMatchReference|TestSeededBugCaseMatchRejectsOthers|TestMaxBoundsWalk|TestPollKindsPartition|TestGlobalRunqFullToEmpty|TestLocalQueueEqual|TestKeyKeepsTaintedBesidePollerFields|TestMutationKillSpec.*)$"},
		{Pkg: "spec", Run: "^(TestCheckClausesFire|TestStringsGolden)$"},
	}}
	// techSpecMechanisms are the spec's tests of the poller, timers,
	// LockOSThread, procresize, injectglist and the steps' granularity.
	techSpecMechanisms = Technique{Name: "spec-mechanisms", Parts: []Part{
		{Pkg: "spec", Run: "^(TestPoll(BoundsOffChangeNothing|BlockPasses|InvariantBites|ersExclude|BoundsValidate)|TestHandoffpLastPollerClause|TestTimer(sPass|LivenessNeedsAQuietNetwork|Steps)|TestLockedHandoffStrandsADueTimer|TestStartLockedM(BeforeThePark|AfterThePark)|TestLockedGExitEndsItsM|TestEnterSyscallBlockHandsOff|TestLockedAndSyscallBlockPass|TestProcResizeShrinkEndsTheStealScan|TestInjectglist(FinalWakep|GlobalWay)|TestSpinLimitReadApartFromBecomeSpinning|TestTopReadsOneWordPerStep|TestResetSpinningAfterTheFind|TestRecheckNeedsTheLiveIdleMask|TestRecheckBecomesSpinningApart|TestRunnextStarvesTheRing|TestCycleFairnessCheckBites|TestWakeCASOnlyByOwnWakep|TestCheckTimersNoPThenExcusedOrOwnStep|TestGlobal61ThenExcusedOrOwnStep|TestStartTheWorldMeetsOnlyStoppedPs|TestLockedMAtScheduleOnlyStops|TestProcResizeMovesTimers|TestRetakeThenExitBeforeHandoff|TestHandoffReadDecides|TestExitSyscall(TakesOldPBack|OldPExplored)|TestEveryMechanismWalk|TestGoyieldAfterHandoffIsFair|TestMutationKillMech.*)$"},
	}}
	techExplorer = Technique{Name: "explorer", Parts: []Part{
		{Pkg: "spec", Run: "^(TestCorrectModelPasses|TestSeededBugsAreFound|TestOldReleasesLoseWakeup|TestStaleAllpSnapshotLosesAWakeup|TestStaleHandoffReadLosesAWakeup|TestHandoffNeedSpinningMakesTheStepExact|TestSpillApartLosesAWakeupOnGoyield|TestNonAtomicScanNeedsRecheckRunqs|TestAllGroupsViolations|TestCutLivenessIsInconclusive|TestCutShortIsIncomplete|TestPartialLiveness.*|TestFairCycle(VisitsTheExcusingState|Property)|TestEveryPrintedLassoIsFair|TestPeriodicLivenessStopsEarly|TestLivenessEdgesChangeNothing|TestLivenessConcurrentPass|TestSuccLog.*|TestCandStays16Bytes)$"},
	}}
	techSymmetry = Technique{Name: "symmetry", Parts: []Part{
		{Pkg: "spec", Run: "^(TestParallel.*|TestSymmetry.*|TestGSymmetry.*|TestPSymmetry.*|TestMaxMemoryIsInconclusive|TestMemoryCutLeavesRoomForLiveness|TestVisited(GrowKeepsEveryKey|Full)|TestFingerprint(PathKeys|QueueBlocks)|TestProgressLines)$"},
	}}
	techCrossTLA = Technique{Name: "tla-crosscheck", Parts: []Part{
		// -long: GMP_netpoll is in the long tier (tlacheck.LongCfgs), where
		// TestModels compares its tla-checker graph with the spec's.
		// TestNextTakesEveryMStep: a step the spec moves to another pc
		// leaves GMP.tla's table of steps by pc.
		{Pkg: "tla", Run: "^(TestModels|TestKeyMapping|TestKeyMappingPoll|TestNextTakesEveryMStep)$/^(GMP|GMP_netpoll)$", Args: []string{"-long"}},
	}}
	techTLAChecker = Technique{Name: "tla-checker", TLA: "tla-checker"}
	techTLATests   = Technique{Name: "tla-selftests", Parts: []Part{
		{Pkg: "tla", Run: "^TestMutationKillTLA.*$", TLADir: true},
	}}
	techTLC = Technique{Name: "tlc", TLA: "tlc"}
)

// Plan lists an area's techniques, fastest to kill first. Building the
// test binaries on the overlay costs more than most test runs (a mutated
// impl/ file recompiles every package above it), so the techniques whose
// tests live in the same binary come together: for the run queues, impl's
// own tests first (unit, rapid, driver, scheduler tests, then the 15 s
// stress), then the instrumented interleaving explorer, porcupine and the
// fuzz targets' seed corpora, each a binary of its own.
func Plan(a Area) []Technique {
	switch a {
	case AreaRunq:
		return []Technique{techUnit, techRapid, techDriver, techSched, techWorkloads, techMechanisms, techStress, techInterleave, techPorcupine, techFuzzQueue}
	case AreaSched:
		return []Technique{techDriver, techSched, techWorkloads, techMechanisms, techStress, techFuzzSched}
	case AreaGM:
		return []Technique{techWorkloads, techSched}
	case AreaSpec:
		return []Technique{techSpecUnit, techSpecMechanisms, techExplorer, techSymmetry, techRapid, techDriver, techPorcupine, techFuzzSched, techCrossTLA}
	case AreaTLA:
		// TLC, when its jar is given, before tla-checker: it explores
		// some thousands of states a second where tla-checker explores a
		// few hundred, and stops at a cfg's first violation. tla-checker
		// still runs on a mutant TLC misses: only it dumps the graph that
		// the GMP cross-check compares with the spec's.
		return []Technique{techTLATests, techTLC, techTLAChecker}
	}
	return nil
}

// Budgets.
const (
	// DefaultPartTimeout bounds one test binary run (its -test.timeout); a
	// mutant that makes a test hang is killed by that test's own hang limit
	// (hang.go), or by this timeout when the test has none.
	DefaultPartTimeout = 90 * time.Second
	// DefaultMutantTimeout bounds one mutant, building included.
	DefaultMutantTimeout = 6 * time.Minute
)
