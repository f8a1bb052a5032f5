import SystemCalls

/// A file a key names for a list of values, one a line: `match.list`'s expected payloads.
///
/// Read whole with `BoundedFileRead` (a regular file only, opened non-blocking), at most `maximumBytes`;
/// UTF-8 text; each line has spaces, tabs and a CRLF's CR cut from both ends; empty lines and
/// lines starting with `#` are skipped; at most `maximumEntries` values.
public enum ListFile {
    /// The largest list file read: 16 MiB.
    public static let maximumBytes = 16 << 20
    /// The most values a list holds.
    public static let maximumEntries = 1_000_000

    /// Why a list file was not read: its `description` says why and what to do (a failed call
    /// names its errno: `Permission denied (open: EACCES)`).
    public struct ReadError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// One value of a list file and the line it is on (from 1), for a message naming the line.
    public struct Line: Sendable, Hashable {
        public var number: Int
        public var text: String

        public init(number: Int, text: String) { (self.number, self.text) = (number, text) }
    }

    /// The values of the file at `path`, in file order (duplicates kept).
    /// - Throws: `ReadError` when the file cannot be read, is over a limit or is not UTF-8 text.
    public static func entries(of path: String, maximumBytes: Int = maximumBytes, maximumEntries: Int = maximumEntries) throws -> [String] {
        try lines(of: path, maximumBytes: maximumBytes, maximumEntries: maximumEntries).map(\.text)
    }

    /// The values of a list file's `bytes` (see the type's summary for the rules).
    public static func entries(in bytes: [UInt8], maximumEntries: Int = maximumEntries) throws -> [String] {
        try lines(in: bytes, maximumEntries: maximumEntries).map(\.text)
    }

    /// The values of the file at `path` with their line numbers, in file order (duplicates kept).
    /// - Throws: `ReadError` when the file cannot be read, is over a limit or is not UTF-8 text.
    public static func lines(of path: String, maximumBytes: Int = maximumBytes, maximumEntries: Int = maximumEntries) throws -> [Line] {
        let bytes: [UInt8]
        do { bytes = try BoundedFileRead.bytes(of: path, limit: maximumBytes) } catch {
            switch error {
            case .system(let call, let errno): throw ReadError(description: "\(errno.description) (\(call): \(errno.symbol))")
            case .notRegular, .tooLarge: throw ReadError(description: error.message)
            }
        }
        return try lines(in: bytes, maximumEntries: maximumEntries)
    }

    /// The values of a list file's `bytes` with their line numbers (see the type's summary for the rules).
    public static func lines(in bytes: [UInt8], maximumEntries: Int = maximumEntries) throws -> [Line] {
        var entries: [Line] = []
        var count = 0
        var lineNumber = 0
        var start = bytes.startIndex
        while start < bytes.endIndex {
            lineNumber += 1
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            defer { start = end + 1 }
            var line = bytes[start..<end]
            while let first = line.first, isBlank(first) { line = line.dropFirst() }
            while let last = line.last, isBlank(last) { line = line.dropLast() }
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            count += 1
            // Past the limit the values are only counted, for the message.
            guard count <= maximumEntries else { continue }
            guard let text = String(validating: line, as: UTF8.self) else {
                throw ReadError(description: "line \(lineNumber) is not valid UTF-8 text")
            }
            entries.append(Line(number: lineNumber, text: text))
        }
        guard count <= maximumEntries else {
            throw ReadError(description: "it has \(count) values, over the limit of \(maximumEntries) values: split the list, or match with a pattern")
        }
        return entries
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }
}
