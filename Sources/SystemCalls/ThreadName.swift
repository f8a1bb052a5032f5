import CSystemCalls

/// Names the calling thread as `top -H`, `ps -L` and backtraces show it (`pthread_setname_np`
/// on the calling thread, through the CSystemCalls shim).
///
/// Call it first thing on a new thread: a thread starts with its creator's name, and
/// Foundation's `Thread.name`, set before `start()`, does not reliably reach the kernel. At most
/// 15 bytes (Linux's limit: a longer name is refused and the thread keeps its old one).
public func nameCurrentThread(_ name: String) {
    precondition(name.utf8.count <= 15, "thread name '\(name)' is longer than Linux's 15 bytes")
    _ = csystemcalls_set_thread_name(name)
}
