/// A region of a frame in pixels, origin top-left: a decoder's rect of interest.
public struct PixelRect: Sendable, Hashable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

extension PixelRect {
    /// The part of this rect inside a `width`×`height` frame; empty (zero width or height) when none is.
    public func clamped(width: Int, height: Int) -> PixelRect {
        let x0 = min(max(x, 0), width), y0 = min(max(y, 0), height)
        let x1 = min(max(x + self.width, x0), width), y1 = min(max(y + self.height, y0), height)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
