import Media

/// An engine (`engine`): an ordered list of decoder passes, of one library or several, built from data.
///
/// `Decoders` builds syncscan's three: `zbar` and `zxing` (one library's passes each) and
/// `hybrid`, both libraries in the same scanning thread, each on every requested symbology it
/// reads, so it reads at least what either reads alone. A code several libraries read is reported
/// once, as read by the library `preferred` names for its kind of symbology; an engine may check
/// its readings of each frame (`readingCheck`: the kind of `ReadingCheck` it makes, its own;
/// `hybrid`'s checks zbar's 1-D readings with zxing-cpp).
public struct DecoderEngine: Sendable, Hashable, CustomStringConvertible {
    /// Whose reading of a code several libraries read is kept, for 2-D and for 1-D symbologies.
    public struct Preference: Sendable, Hashable {
        public var twoDimensional: DecoderLibraryID
        public var linear: DecoderLibraryID
        public init(twoDimensional: DecoderLibraryID, linear: DecoderLibraryID) { (self.twoDimensional, self.linear) = (twoDimensional, linear) }
    }

    /// The name the configuration gives it (`engine: hybrid`).
    public let name: String
    /// Its passes, in the order a frame gets them (cheapest first).
    public let passes: [DecoderPass]
    /// The libraries its passes are of, in the order given.
    public let libraries: [any DecoderLibrary]
    public let preferred: Preference?
    /// What checks its readings of each frame, a check per scanning thread (`MetadataOutput`); `nil`: none.
    public let readingCheck: (any ReadingCheckKind)?

    /// - Precondition: every pass is of one of `libraries`.
    public init(name: String, libraries: [any DecoderLibrary], passes: [DecoderPass], preferred: Preference? = nil,
                readingCheck: (any ReadingCheckKind)? = nil) {
        precondition(passes.allSatisfy { pass in libraries.contains { $0.id == pass.library } }, "a pass of a library the engine does not have")
        (self.name, self.libraries, self.passes, self.preferred, self.readingCheck) = (name, libraries, passes, preferred, readingCheck)
    }

    public var description: String { name }

    public static func == (a: DecoderEngine, b: DecoderEngine) -> Bool {
        a.name == b.name && a.passes.map(\.rawValue) == b.passes.map(\.rawValue) && a.libraries.map(\.id) == b.libraries.map(\.id)
            && a.preferred == b.preferred && sameCheck(a.readingCheck, b.readingCheck)
    }

    private static func sameCheck(_ a: (any ReadingCheckKind)?, _ b: (any ReadingCheckKind)?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.isSame(as: b)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(name); hasher.combine(passes) }

    /// Everything this engine reads: what `symbologies: all` means.
    public var readable: Set<Symbology> { libraries.reduce(into: []) { $0.formUnion($1.readable) } }

    /// The library `id` of this engine.
    public func library(_ id: DecoderLibraryID) -> (any DecoderLibrary)? { libraries.first { $0.id == id } }

    /// The part of `symbologies` that library `id` reads in this engine: all of them in an engine
    /// of one library (it reads what it can), the ones it reads in an engine of several.
    public func part(of symbologies: Set<Symbology>, for id: DecoderLibraryID) -> Set<Symbology> {
        guard let library = library(id) else { return [] }
        return libraries.count == 1 ? symbologies : symbologies.intersection(library.readable)
    }

    /// Whose reading of `symbology` is kept when several libraries read it; `nil`: the first.
    public func preferred(for symbology: Symbology) -> DecoderLibraryID? {
        preferred.map { symbology.isTwoDimensional ? $0.twoDimensional : $0.linear }
    }
}
