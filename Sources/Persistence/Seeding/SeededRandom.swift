import Foundation

/// SplitMix64: a small, fast, deterministic generator, so a seed always yields the same
/// dataset.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// Starts from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A UUID made of 128 generated bits (version 4 layout).
    public mutating func uuid() -> UUID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &self) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// An index in `0..<count` skewed towards 0 (`power` 1 is uniform; 3 makes a few hot).
    public mutating func skewed(_ count: Int, power: Double) -> Int {
        min(count - 1, Int(Double(count) * pow(Double.random(in: 0..<1, using: &self), power)))
    }
}

/// Korean-looking names for generated influencers and products.
public enum SampleNames {
    static let surnames = ["김", "이", "박", "최", "정", "강", "조", "윤", "장", "임", "한", "오", "서", "신", "권", "황"]
    static let given = ["민지", "서연", "지우", "하은", "수빈", "예린", "도윤", "시우", "주원", "하준", "유나", "채원", "지민", "소율", "다은", "윤서"]
    static let romanized = ["minji", "seoyeon", "jiwoo", "haeun", "subin", "yerin", "doyoon", "siwoo", "juwon", "hajun", "yuna", "chaewon", "jimin", "soyul", "daeun", "yoonseo"]
    static let products: [String: [String]] = [
        "beauty": ["수분 크림", "선크림", "클렌징 오일", "립 틴트", "앰플 세트"], "food": ["제주 감귤", "한우 세트", "유기농 쌀", "수제 그래놀라", "김치"],
        "fashion": ["캐시미어 니트", "롱 패딩", "데님 팬츠", "가죽 벨트", "울 코트"], "living": ["수납 박스", "극세사 이불", "무드등", "디퓨저", "러그"],
        "kids": ["유아 로션", "원목 블록", "아기 물티슈", "유아 내복", "그림책 세트"], "electronics": ["무선 청소기", "에어프라이어", "블루투스 이어폰", "전기 포트", "가습기"],
        "travel": ["제주 숙박권", "캐리어", "여행용 파우치", "리조트 패키지", "항공권 할인"], "pet": ["강아지 사료", "고양이 모래", "펫 방석", "간식 세트", "하네스"],
        "fitness": ["요가 매트", "단백질 쉐이크", "폼롤러", "덤벨 세트", "러닝화"], "education": ["영어 회화 강의", "필사 노트", "독서대", "코딩 키트", "수학 문제집"],
        "stationery": ["만년필", "다이어리", "마스킹 테이프", "색연필 세트", "스티커북"], "camping": ["캠핑 의자", "텐트", "랜턴", "버너", "침낭"],
        "automotive": ["차량용 방향제", "블랙박스", "세차 키트", "핸드폰 거치대", "트렁크 정리함"],
    ]
    /// The category ids in chip order.
    public static let categories = ["beauty", "food", "fashion", "living", "kids", "electronics", "travel", "pet", "fitness", "education", "stationery", "camping", "automotive"]

    /// A full name and an Instagram-style username for influencer `index`.
    static func influencer(_ index: Int, category: String, prefix: String) -> (username: String, fullName: String) {
        let surname = surnames[index % surnames.count], name = given[(index / surnames.count) % given.count]
        return ("\(prefix)\(category).\(romanized[(index / surnames.count) % romanized.count])\(index)", surname + name)
    }
}
