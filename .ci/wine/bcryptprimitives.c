/* A stand-in for Windows' bcryptprimitives.dll, for the Wine prefix of .ci/windows alone (never
 * shipped). Rust's standard library takes its random numbers from ProcessPrng, which Windows 10
 * and later have in bcryptprimitives.dll; Debian 12's Wine 8 has no such DLL, so every Rust
 * program stops before main() there ("Library bcryptprimitives.dll ... not found"). This one
 * answers ProcessPrng from BCryptGenRandom, which Wine has. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
