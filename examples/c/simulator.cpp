// A simulator's floating-point unit on libgpufp, as a functional GPU model (GPGPU-Sim's
// instructions.cc, say) would use it: each PTX instruction of the kernel is decoded once into a
// gpufp_instr, then executed per warp over the 32 lanes' registers through the array API, with
// the active mask deciding which lanes take the result.
//
// Build: c++ -std=c++17 simulator.cpp $(pkg-config --cflags --libs gpufp) -o simulator
#include <gpufp.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kWarp = 32;
using Reg = std::array<uint32_t, kWarp>;  // one 32-bit register, all lanes

// A decoded instruction: the gpufp handle and the registers it reads and writes.
struct Decoded {
    std::unique_ptr<gpufp_instr, decltype(&gpufp_instr_free)> instr{nullptr, gpufp_instr_free};
    int dst;
    std::vector<int> srcs;
};

Decoded decode(const char *text, int dst, std::vector<int> srcs) {
    gpufp_error err;
    gpufp_options opts{};
    opts.target = "sm_100";  // three-input max.f32 needs it
    opts.operands = srcs.size();  // picks the 2- or 3-input form of min/max
    gpufp_instr *i = gpufp_instr_parse(text, &opts, &err);
    if (!i) throw std::runtime_error(std::string("decode: ") + err.message);
    if (gpufp_instr_width(i) != 32) throw std::runtime_error("this model has 32-bit registers");
    Decoded d;
    d.instr.reset(i);
    d.dst = dst;
    d.srcs = std::move(srcs);
    return d;
}

// Executes one instruction for a warp: every lane is computed in one array call, the active
// lanes' results are written back.
void execute(const Decoded &d, std::vector<Reg> &regs, uint32_t active) {
    std::array<const uint32_t *, 3> ops{};
    for (size_t k = 0; k < d.srcs.size(); k++) ops[k] = regs[d.srcs[k]].data();
    Reg result;
    gpufp_error err;
    if (gpufp_eval_u32(d.instr.get(), ops.data(), d.srcs.size(), kWarp, result.data(), &err) !=
        GPUFP_OK)
        throw std::runtime_error(std::string("execute: ") + err.message);
    for (int lane = 0; lane < kWarp; lane++)
        if (active >> lane & 1) regs[d.dst][lane] = result[lane];
}

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

}  // namespace

int main() {
    enum { X, Y, Z, ACC, LO, T, P, H };
    std::vector<Reg> regs(8);
    for (int lane = 0; lane < kWarp; lane++) {
        regs[X][lane] = bits(1.0f + lane * 0x1p-12f);
        regs[Y][lane] = bits(lane % 5 == 0 ? -0.0f : 3.0f - lane);
        regs[Z][lane] = bits(-1.0f);
        regs[LO][lane] = bits(0.25f);
        regs[H][lane] = 0x3C00u << 16 | 0x3C00u;  // f16x2 {1, 1}
    }
    const std::vector<Decoded> kernel = [] {
        std::vector<Decoded> k;
        k.push_back(decode("fma.rn.f32", ACC, {X, X, Z}));              // x*x - 1, one rounding
        k.push_back(decode("max.NaN.f32", T, {ACC, Y, LO}));            // three-input max
        k.push_back(decode("mul.rn.ftz.sat.f32", P, {T, T}));          // clamp to [0, 1]
        k.push_back(decode("ex2.approx.ftz.f32", X, {P}));             // the special-function unit
        k.push_back(decode("fma.rn.relu.f16x2", H, {H, H, H}));         // packed halves
        return k;
    }();
    const uint32_t active = 0x7FFFFFFFu;  // lane 31 is inactive (diverged)
    for (const Decoded &d : kernel) execute(d, regs, active);

    for (int lane : {0, 1, 5, 17, 31}) {
        std::printf("lane %2d: acc 0x%08x  t 0x%08x  p 0x%08x  ex2 0x%08x  h 0x%08x\n", lane,
                    regs[ACC][lane], regs[T][lane], regs[P][lane], regs[X][lane], regs[H][lane]);
    }
    // Lane 1: (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 (0x3a000400); lane 31 kept its registers.
    bool ok = regs[ACC][1] == 0x3A000400u && regs[ACC][31] == 0 && regs[X][31] == bits(1.0f + 31 * 0x1p-12f) &&
              regs[H][0] == 0x40004000u;  // 1*1 + 1 = 2 in both halves
    std::printf("%s\n", ok ? "ok" : "UNEXPECTED");
    return ok ? 0 : 1;
}
