import Foundation
import Testing

/// README.md and docs/ stay whole: no broken relative link or anchor between them
/// (`scripts/check-links.py`), and every benchmark table in them is what its data in
/// `bench/results/` renders (`bench/render.py --check`).
@Suite(.offThePool) struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test("every relative link and anchor between README.md and docs/ leads to a file and a heading")
    func linksResolve() throws {
        let check = try SyncscanProcess.shell("python3 '\(Self.root)/scripts/check-links.py'")
        #expect(check.status == 0, "\(String(decoding: check.stdout, as: UTF8.self))\(check.stderr)")
        #expect(check.stderr.contains(" 0 broken links"), "\(check.stderr)")
    }

    @Test("every benchmark table in README.md and docs/ is what bench/render.py renders from bench/results")
    func benchmarkTablesMatchTheirData() throws {
        let check = try SyncscanProcess.shell("python3 '\(Self.root)/bench/render.py' --check")
        #expect(check.status == 0, "\(String(decoding: check.stdout, as: UTF8.self))\(check.stderr)")
        #expect(!check.stderr.contains("render: 0 marked tables"), "the documents mark their tables: \(check.stderr)")
    }
}
