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
/// and comes out only as `sending`, so the compiler still checks it is not shared unlocked. The mutex lives in its own allocation (a
/// `pthread_mutex_t` must not move), destroyed in `deinit`.
public final class LockedValue<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        let result = pthread_mutex_destroy(mutex)
        precondition(result == 0, "pthread_mutex_destroy failed: \(result) (destroyed while locked)")
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` on the value while holding the lock (`pthread_mutex_lock`, then
    /// `pthread_mutex_unlock` however `body` ends). Not reentrant: calling `withLock` on the
    /// same value from inside `body` deadlocks.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
        }
        return try body(&value)
    }
}
