; The Windows installer (`scripts/build-windows` runs Debian's makensis on it): for the player
; alone, with no administrator's rights. It puts the game, the engine's command line and the
; server in %LOCALAPPDATA%\Programs\Khet, adds a Start-menu entry and lists its uninstaller among
; the installed programs. Uninstalling removes the programs and the entry and leaves the
; player's settings, saved games and lesson progress (%APPDATA%\khet) where they are.
;
; makensis -DVERSION=0.1.0 -DBIN=<folder of the .exe files> -DOUT=<installer's path> khet.nsi
; `khet-setup.exe /S` installs silently; `uninstall.exe /S` uninstalls silently.

Unicode true
Target amd64-unicode
SetCompressor /SOLID lzma

!include "MUI2.nsh"

!define NAME "Khet"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Khet"

Name "${NAME}"
OutFile "${OUT}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\Khet"
InstallDirRegKey HKCU "${UNINSTALL_KEY}" "InstallLocation"
BrandingText "Khet ${VERSION}"

VIProductVersion "${VERSION}.0"
VIAddVersionKey /LANG=1033 "ProductName" "Khet"
VIAddVersionKey /LANG=1033 "FileDescription" "Khet, the laser game: installer"
VIAddVersionKey /LANG=1033 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "CompanyName" "The Khet developers"
VIAddVersionKey /LANG=1033 "LegalCopyright" "MIT OR Apache-2.0"

!define MUI_ICON "khet.ico"
!define MUI_UNICON "khet.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\khet.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Play Khet now"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_LICENSE "${BIN}\LICENSE.txt"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "Khet"
    SetShellVarContext current
    SetOutPath "$INSTDIR"
    File "${BIN}\khet.exe"
    File "${BIN}\khet-engine.exe"
    File "${BIN}\khet-server.exe"
    File "${BIN}\README.txt"
    File "${BIN}\LICENSE.txt"
    WriteUninstaller "$INSTDIR\uninstall.exe"

    CreateShortcut "$SMPROGRAMS\Khet.lnk" "$INSTDIR\khet.exe" "" "$INSTDIR\khet.exe" 0

    WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "Khet"
    WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
    WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "The Khet developers"
    WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\khet.exe"
    WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
    WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
    WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
    WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
    WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
SectionEnd

Section "Uninstall"
    SetShellVarContext current
    ; The programs and the entry; %APPDATA%\khet (settings, saves, progress) is the player's.
    Delete "$INSTDIR\khet.exe"
    Delete "$INSTDIR\khet-engine.exe"
    Delete "$INSTDIR\khet-server.exe"
    Delete "$INSTDIR\README.txt"
    Delete "$INSTDIR\LICENSE.txt"
    Delete "$INSTDIR\uninstall.exe"
    RMDir "$INSTDIR"
    Delete "$SMPROGRAMS\Khet.lnk"
    DeleteRegKey HKCU "${UNINSTALL_KEY}"
SectionEnd
