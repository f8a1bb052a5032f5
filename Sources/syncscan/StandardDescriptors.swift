import ArgumentParser
import Daemon
import Foundation
import SystemCalls

/// stdin, stdout and stderr (descriptors 0–2) that were closed when syncscan started.
///
/// A descriptor left closed is the number the next `open`, `socket` or `epoll_create` returns: an
/// epoll handle became descriptor 1, and code lines were written into it (`write: Invalid
/// argument`). `reserve()`, first thing in `main`, opens each closed one on `/dev/null`, so no
/// later open takes its number; `run` then refuses to start when stdout was closed and the code
/// lines go there (`refuseClosedStdout`).
enum StandardDescriptors {
    /// The descriptors (of 0, 1, 2) that were closed at start, set by `reserve()`.
    static let closedAtStart = LockedValue<Set<Int32>>([])

    /// Opens each of 0, 1, 2 that is closed (`fcntl(F_GETFD)` fails with EBADF) on `/dev/null`
    /// (`open(O_RDWR)`, which takes the lowest free number: the closed one) and records it.
    static func reserve() {
        var closed: Set<Int32> = []
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            closed.insert(fd)
            let opened = open("/dev/null", O_RDWR)
            // Lower numbers are open by now, so it is `fd`; moved there should it not be.
            if opened >= 0 && opened != fd { dup2(opened, fd); close(opened) }
        }
        closedAtStart.withLock { $0 = closed }
    }

    /// Stops `run` with exit status 2 when stdout was closed at start and `writesCodes` (the code
    /// lines go to stdout: `output.stdout`): they would all be lost.
    static func refuseClosedStdout(writesCodes: Bool) throws {
        guard writesCodes, closedAtStart.withLock({ $0.contains(1) }) else { return }
        StandardError.writeLine("syncscan: error: stdout was closed when syncscan started (as by `>&-`), and the code lines go there: "
                                + "give it a file or a pipe (`> /dev/null` to discard them), or set output.stdout: false "
                                + "with mqtt.url or webhook.url as the sink")
        throw ExitCode(2)
    }
}
