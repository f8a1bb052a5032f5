import SystemPackage

extension Result where Failure == Errno {
    /// The value of a swift-system call, or the `Errno` it threw.
    ///
    /// swift-system's `open`, `read(into:)`, `write` and `close` are declared `throws` but throw
    /// only `Errno` (EINTR already retried); anything else would be a bug there, reported as EIO.
    public init(catchingErrno call: () throws -> Success) {
        do {
            self = .success(try call())
        } catch let error as Errno {
            self = .failure(error)
        } catch {
            self = .failure(.ioError)
        }
    }
}
