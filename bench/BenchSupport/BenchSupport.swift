// What the bench executables share: failing with a message, reading a frame file whole.
#if canImport(Glibc)
import Glibc
#endif

/// One bench executable: its name, which starts its messages.
public struct BenchTool: Sendable {
    public let name: String

    public init(name: String) { self.name = name }

    /// Writes `NAME: message` to standard error (`write(2)`) and exits 1.
    public func fail(_ message: String) -> Never {
        let line = Array("\(name): \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(1)
    }

    /// The whole file at `path` (`fopen`/`fread`); fails naming it when it cannot be opened.
    public func readFile(_ path: String) -> [UInt8] {
        guard let f = fopen(path, "rb") else { fail("cannot open \(path)") }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }
}
