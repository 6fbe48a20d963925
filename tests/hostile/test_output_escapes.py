"""Terminal controls in what the command line echoes (a netlist's title, a file's name):
shown escaped, never sent to the terminal, where an ESC sequence could clear the screen,
recolour or retitle it, or hide text."""
from circuitsim import cli

ESC = "\x1b"


def test_a_title_and_a_file_name_with_escape_sequences_are_shown_escaped(tmp_path, capsys):
    path = tmp_path / f"x{ESC}[2Jy.cir"
    path.write_text(f".title {ESC}[31mred{ESC}[0m and a bell\x07\n"
                    "V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1\n")
    for command in (["check", str(path)], ["run", str(path), "--out",
                                            str(tmp_path / "r.csv")]):
        assert cli.main(command) == 0
        shown = capsys.readouterr()
        text = shown.out + shown.err
        assert ESC not in text and "\x07" not in text
        assert "\\x1b[2J" in text
    assert cli.main(["check", str(path)]) == 0
    assert "\\x1b[31mred\\x1b[0m and a bell\\x07" in capsys.readouterr().out


def test_errors_and_the_streams_after_main_are_as_before(tmp_path, capsys):
    import sys
    before = sys.stdout, sys.stderr
    path = tmp_path / f"bad{ESC}]0;owned\x07.cir"
    path.write_text("R R1 a 0 R=-1\n.tran 1\n")
    assert cli.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert ESC not in err and "bad\\x1b]0;owned\\x07.cir:1:" in err
    assert (sys.stdout, sys.stderr) == before
