/// Stretches of time in which the process did not run, as a periodic loop sees them: it woke
/// later than its interval plus a tolerance (SIGSTOP then SIGCONT, Ctrl-Z, a suspended machine).
///
/// A scan is timed on the time around them (`elapsed(since:now:)`), so a process that resumes
/// never finds a scan stuck that was only frozen with the rest of it. Only the recent pauses are
/// kept (`capacity`): a scan older than all of them is stuck by any count.
struct ProcessPauses {
    private var pauses: [(start: ContinuousClock.Instant, end: ContinuousClock.Instant)] = []
    private var lastTick: ContinuousClock.Instant?
    let interval: Duration
    let tolerance: Duration
    let capacity: Int

    init(interval: Duration, tolerance: Duration = .seconds(1), capacity: Int = 16) {
        self.interval = interval
        self.tolerance = tolerance
        self.capacity = capacity
    }

    /// Records that the loop ran at `now`; a wake more than `interval + tolerance` after the
    /// previous one records the excess over `interval` as a pause.
    mutating func tick(at now: ContinuousClock.Instant) {
        defer { lastTick = now }
        guard let last = lastTick, now - last > interval + tolerance else { return }
        pauses.append((start: last + interval, end: now))
        if pauses.count > capacity { pauses.removeFirst(pauses.count - capacity) }
    }

    /// The time from `start` to `now` less the pauses within it.
    func elapsed(since start: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Duration {
        var elapsed = now - start
        for pause in pauses where pause.end > start && pause.start < now {
            elapsed -= min(pause.end, now) - max(pause.start, start)
        }
        return max(elapsed, .zero)
    }

    /// The pauses recorded, oldest first (for tests and logs).
    var recorded: [(start: ContinuousClock.Instant, end: ContinuousClock.Instant)] { pauses }
}
