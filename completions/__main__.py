from torchdoctor.shell import FOLDER

print(FOLDER)
