#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value only reached while holding a `pthread_mutex_t`: the lock of every shared state in syncscan.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer cannot see that one on Linux
/// (Swift 6.3.1): its lock is a futex the sanitizer does not intercept, so every pair of accesses
/// inside its `withLock` from two threads is reported as a race (a two-thread program
/// incrementing one field 100,000 times each inside `Mutex.withLock`, built with
/// `-sanitize=thread`, prints "data race" and still ends at exactly 200,000). TSan intercepts
/// `pthread_mutex_lock`/`unlock`, so with this lock `scripts/sanitize.sh thread` checks every
/// shared state and needs no suppressions. Like `Mutex`, a value that is not `Sendable` goes in
/// and comes out only as `sending`, so the compiler still checks it is not shared unlocked.
///
/// It carries one condition (`pthread_cond_t` on `CLOCK_MONOTONIC`): `withLock(when:deadline:_:)`
/// waits until the value satisfies a predicate, and `broadcast()` wakes the waiters after a
/// change; so the same type is the lock of a worker's queue. The mutex and the condition live in
/// their own allocations (neither may move), destroyed in `deinit`.
public final class LockedValue<Value>: @unchecked Sendable {  // unchecked: the value is reached only under the pthread mutex
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        let made = pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        precondition(made == 0, "pthread_cond_init failed: \(made)")
    }

    deinit {
        let result = pthread_mutex_destroy(mutex)
        precondition(result == 0, "pthread_mutex_destroy failed: \(result) (destroyed while locked)")
        pthread_cond_destroy(condition)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    /// Waits, holding the lock between checks, until `ready(value)` is true or `deadline` (on
    /// `ContinuousClock`, `nil`: none) passes, then runs `body` on the value with the lock held;
    /// `body`'s second argument says whether `ready` held (false: the deadline passed).
    /// `pthread_cond_timedwait` on `CLOCK_MONOTONIC`; spurious wake-ups are re-checked.
    public func withLock<Result, Failure: Error>(
        when ready: (borrowing Value) -> Bool, deadline: ContinuousClock.Instant? = nil,
        _ body: (inout sending Value, _ ready: Bool) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock()
        defer { unlock() }
        var isReady = ready(value)
        while !isReady {
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining <= .zero { break }
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let (seconds, attoseconds) = remaining.components
                var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
                var until = timespec(tv_sec: now.tv_sec + Int(seconds), tv_nsec: 0)
                if nanoseconds >= 1_000_000_000 { until.tv_sec += 1; nanoseconds -= 1_000_000_000 }
                until.tv_nsec = nanoseconds
                _ = pthread_cond_timedwait(condition, mutex, &until)
            } else {
                _ = pthread_cond_wait(condition, mutex)
            }
            isReady = ready(value)
        }
        return try body(&value, isReady)
    }

    /// `pthread_mutex_lock`; a failure is a programming error (the mutex is never destroyed while in use).
    private func lock() {
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
    }

    /// `pthread_mutex_unlock`.
    private func unlock() {
        let unlocked = pthread_mutex_unlock(mutex)
        precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
    }

    /// Wakes every thread waiting in `withLock(when:deadline:_:)` to check its predicate again
    /// (`pthread_cond_broadcast`); call it after a change, with or without the lock.
    public func broadcast() {
        pthread_cond_broadcast(condition)
    }

    /// Runs `body` on the value while holding the lock (`pthread_mutex_lock`, then
    /// `pthread_mutex_unlock` however `body` ends). Not reentrant: calling `withLock` on the
    /// same value from inside `body` deadlocks.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock()
        defer { unlock() }
        return try body(&value)
    }
}
