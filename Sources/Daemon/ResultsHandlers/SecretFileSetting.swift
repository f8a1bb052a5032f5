import ConfigurationKeys
import Logging
import SystemCalls

/// The first line of the secret file a handler's `key` names (`SecretFile.firstLine`); `nil`
/// when none is named, or, logged with what the handler does `without` it (never the secret),
/// when it cannot be read.
func secretFileLine(_ path: String?, key: String, without: String, logger: Logger) -> String? {
    guard let path else { return nil }
    do {
        return try SecretFile.firstLine(of: path)
    } catch {
        logger.error("\(key) cannot be read; \(without)", metadata: ["file": "\(LogText.untrusted(path))", "error": "\(LogText.error(error))"])
        return nil
    }
}
