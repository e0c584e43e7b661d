from moecfg.cli import main

main()
