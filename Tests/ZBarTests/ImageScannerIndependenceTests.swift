import Media
import Testing
import TestSupport
import ZBar

/// One frame's scan must not depend on the frames scanned before it with the same scanner.
@Suite(.offThePool) struct ImageScannerIndependenceTests {
    /// EAN-13 codes, each a different payload, made hard in turn (as `bench/recall.py` does):
    /// the kind of sequence after which zbar's decoders used to report a previous frame's code.
    static func frames() throws -> [GreyFrame] {
        let conditions: [(rotation: Double, make: (GreyFrame) -> GreyFrame)] = [
            (0, { $0 }), (0, { $0.blurred(radius: 1) }), (11, { $0 }),
            (0, { $0.withContrast(dark: 90, light: 170) }), (0, { $0.withNoise(amplitude: 50, seed: 3) }),
        ]
        var frames: [GreyFrame] = []
        for (index, condition) in (conditions + conditions).enumerated() {
            var frame = GreyFrame(width: 400, height: 240)
            let digits = String(400_000_000_000 + index * 79_190)
            frame.draw(try ModuleMatrix.linearBarcode(zintSymbology: "EANX", data: digits).stretched(toRows: 50),
                       centerX: 200, centerY: 120, moduleSize: index < 5 ? 2 : 3, rotationDegrees: condition.rotation,
                       samplesPerAxis: condition.rotation == 0 ? 1 : 3)
            frames.append(condition.make(frame))
        }
        return frames
    }

    @Test("a frame scanned after others gives exactly what a fresh scanner gives it")
    func scansAreIndependent() throws {
        let settings = ScannerSettings(symbologies: Symbology.zbarReadable)
        let shared = ImageScanner(settings: settings)
        var codes = 0
        for (index, frame) in try Self.frames().enumerated() {
            let alone = frame.withUnsafeBytes {
                ImageScanner(settings: settings).scan(luma: $0, width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine)
            }
            let inSequence = frame.withUnsafeBytes {
                shared.scan(luma: $0, width: frame.width, height: frame.height, bytesPerLine: frame.bytesPerLine)
            }
            #expect(inSequence == alone, "frame \(index): in sequence \(inSequence.map { String(decoding: $0.data, as: UTF8.self) }), alone \(alone.map { String(decoding: $0.data, as: UTF8.self) })")
            codes += alone.count
        }
        #expect(codes >= 5, "the sequence must hold readable codes to mean anything (read \(codes))")
    }
}
