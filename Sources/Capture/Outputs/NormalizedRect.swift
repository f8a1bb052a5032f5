import Media

/// A rectangle in normalized frame coordinates (0–1, origin top-left), like AVFoundation's
/// `rectOfInterest`.
public struct NormalizedRect: Sendable, Hashable, Codable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    /// The rectangle at `x`,`y` of the given size inside the unit square, a missing side reaching
    /// the far edge; or, per wrong side (`x`, `y`, `width`, `height`), what is wrong with it.
    public static func fitting(x: Double, y: Double, width: Double?, height: Double?)
        -> (rect: NormalizedRect?, problems: [(side: String, message: String)]) {
        var problems: [(side: String, message: String)] = []
        for (origin, size, name, axis, edge) in [(x, width, "width", "x", "right"), (y, height, "height", "y", "bottom")] {
            let extent = size ?? 1 - origin
            if extent <= 0 { problems.append((axis, "leaves no \(name): \(axis) must be less than 1")) }
            if origin + extent > 1 + 1e-9 {
                let sum = DecimalText.string(origin + extent, fractionDigits: 6)
                problems.append((size != nil ? name : axis, "\(axis) + \(name) = \(sum) goes past the \(edge) edge (must be at most 1)"))
            }
        }
        guard problems.isEmpty else { return (nil, problems) }
        let (w, h) = (width ?? 1 - x, height ?? 1 - y)
        return (NormalizedRect(x: x, y: y, width: min(w, 1 - x), height: min(h, 1 - y)), [])
    }

    /// The pixel rectangle this covers in a `width`×`height` frame.
    public func pixels(width: Int, height: Int) -> PixelRect {
        let x0 = Int((x * Double(width)).rounded(.down)), y0 = Int((y * Double(height)).rounded(.down))
        let x1 = Int(((x + self.width) * Double(width)).rounded(.up)), y1 = Int(((y + self.height) * Double(height)).rounded(.up))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
