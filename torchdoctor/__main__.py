from torchdoctor.cli import main

main()
