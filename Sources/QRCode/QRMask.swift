/// The eight data mask patterns and the four penalty rules used to choose between them.
enum QRMask {
    /// Whether mask `pattern` inverts the module at row `i`, column `j`.
    static func inverts(pattern: Int, i: Int, j: Int) -> Bool {
        switch pattern {
        case 0: return (i + j) % 2 == 0
        case 1: return i % 2 == 0
        case 2: return j % 3 == 0
        case 3: return (i + j) % 3 == 0
        case 4: return (i / 2 + j / 3) % 2 == 0
        case 5: return (i * j) % 2 + (i * j) % 3 == 0
        case 6: return ((i * j) % 2 + (i * j) % 3) % 2 == 0
        default: return ((i + j) % 2 + (i * j) % 3) % 2 == 0
        }
    }

    /// `matrix` with mask `pattern` applied to every non-function module and the matching
    /// format information written.
    static func apply(pattern: Int, to matrix: QRMatrix) -> QRMatrix {
        var masked = matrix
        let size = matrix.size
        for i in 0..<size {
            for j in 0..<size where !matrix.isFunction[i * size + j] {
                if inverts(pattern: pattern, i: i, j: j) { masked.dark[i * size + j].toggle() }
            }
        }
        masked.drawFormat(bits: QRFormat.formatBits(mask: pattern))
        return masked
    }

    /// The mask with the lowest total penalty (the lowest pattern number on a tie) and its
    /// masked matrix.
    static func best(for matrix: QRMatrix) -> (pattern: Int, matrix: QRMatrix) {
        var best = (pattern: 0, matrix: apply(pattern: 0, to: matrix))
        var bestScore = penalty(best.matrix)
        for pattern in 1..<8 {
            let candidate = apply(pattern: pattern, to: matrix)
            let score = penalty(candidate)
            if score < bestScore {
                best = (pattern, candidate)
                bestScore = score
            }
        }
        return best
    }

    /// The sum of the four penalty rules (N1 = 3, N2 = 3, N3 = 40, N4 = 10).
    static func penalty(_ matrix: QRMatrix) -> Int {
        runPenalty(matrix) + blockPenalty(matrix) + finderLikePenalty(matrix) + balancePenalty(matrix)
    }

    /// Rule 1: each run of five or more same-colour modules in a row or column scores
    /// 3 + (length − 5).
    static func runPenalty(_ matrix: QRMatrix) -> Int {
        let size = matrix.size
        var score = 0
        for line in 0..<size {
            for horizontal in [true, false] {
                var runColour = false
                var runLength = 0
                for k in 0..<size {
                    let dark = horizontal ? matrix.dark[line * size + k] : matrix.dark[k * size + line]
                    if k > 0 && dark == runColour {
                        runLength += 1
                    } else {
                        if runLength >= 5 { score += 3 + runLength - 5 }
                        runColour = dark
                        runLength = 1
                    }
                }
                if runLength >= 5 { score += 3 + runLength - 5 }
            }
        }
        return score
    }

    /// Rule 2: 3 for every 2×2 square of one colour (overlapping squares all count).
    static func blockPenalty(_ matrix: QRMatrix) -> Int {
        let size = matrix.size
        var score = 0
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = matrix.dark[y * size + x]
                if matrix.dark[y * size + x + 1] == colour,
                    matrix.dark[(y + 1) * size + x] == colour,
                    matrix.dark[(y + 1) * size + x + 1] == colour
                {
                    score += 3
                }
            }
        }
        return score
    }

    /// Rule 3: 40 for every dark-light-dark-dark-dark-light-dark (1:1:3:1:1) sequence with
    /// four light modules before or after it, in a row or column. Modules outside the
    /// symbol count as light (the quiet zone).
    static func finderLikePenalty(_ matrix: QRMatrix) -> Int {
        let size = matrix.size
        let core: [Bool] = [true, false, true, true, true, false, true]
        var score = 0
        for line in 0..<size {
            for horizontal in [true, false] {
                func dark(_ k: Int) -> Bool {
                    guard k >= 0, k < size else { return false }
                    return horizontal ? matrix.dark[line * size + k] : matrix.dark[k * size + line]
                }
                for start in 0...(size - 7) {
                    guard (0..<7).allSatisfy({ dark(start + $0) == core[$0] }) else { continue }
                    let lightBefore = (1...4).allSatisfy { !dark(start - $0) }
                    let lightAfter = (1...4).allSatisfy { !dark(start + 6 + $0) }
                    if lightBefore { score += 40 }
                    if lightAfter { score += 40 }
                }
            }
        }
        return score
    }

    /// Rule 4: 10 for every full 5 % that the dark share deviates from 50 %.
    static func balancePenalty(_ matrix: QRMatrix) -> Int {
        let total = matrix.dark.count
        let darkCount = matrix.dark.reduce(0) { $0 + ($1 ? 1 : 0) }
        // |dark/total − 1/2| / 5 % = |20·dark − 10·total| / total, rounded down.
        return abs(20 * darkCount - 10 * total) / total * 10
    }
}
