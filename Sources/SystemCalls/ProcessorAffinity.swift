import CSystemCalls

/// The processors this process may run on (`sched_getaffinity(2)`), at least 1.
///
/// Unlike `ProcessInfo.activeProcessorCount` this honours `taskset`, cgroup cpusets and
/// systemd's `CPUAffinity=`.
public func schedulableProcessorCount() -> Int {
    switch valueOrErrno({ csystemcalls_affinity_processor_count() }) {
    case .success(let count): max(1, Int(count))
    case .failure: 1
    }
}
