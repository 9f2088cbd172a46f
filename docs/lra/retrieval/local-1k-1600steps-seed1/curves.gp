# curves.svg and curves.png, written by attnzoo; rerun with `gnuplot curves.gp` in this folder.
$train << EOD
100 0.7380601638555526 0.506875
200 0.6690802037715912 0.56125
300 0.6122216901183128 0.63875
400 0.5699149313569069 0.6875
500 0.5441092097759247 0.715
600 0.4365537020564079 0.786875
700 0.43424693748354917 0.8
800 0.4287434309720993 0.8125
900 0.32444846838712695 0.8625
1000 0.33618852831423287 0.853125
1100 0.29880773812532426 0.87625
1200 0.23501106176525356 0.915
1300 0.22675137240439653 0.911875
1400 0.20876969572156668 0.921875
1500 0.19156433848664165 0.92875
1600 0.18400932002812624 0.93
EOD
$val << EOD
200 0.6943334824330097 0.5533428165007113
400 0.7100913627218894 0.5682788051209103
600 0.7862961882378264 0.5995732574679943
800 0.7565276174253623 0.6109530583214794
1000 0.7695613464454499 0.6258890469416786
1200 0.8576698045472841 0.6322901849217639
1400 0.9430038555078791 0.620199146514936
1600 0.9493856822613462 0.6244665718349929
EOD

set terminal svg size 1100,450 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'curves.svg'
set multiplot layout 1,2 title "/work/rcurve/local-1k-1600: test accuracy 0.549 at the best validation step 1200"
set grid
set xlabel 'step'
set ylabel 'loss'
set key top right
plot $train using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'training loss (mean since last log)', $val using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation loss'
set ylabel 'accuracy'
set yrange [0:1]
set key bottom right
plot $train using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'training accuracy (mean since last log)', $val using 1:3 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation accuracy'
set autoscale y
unset multiplot
unset output
set terminal pngcairo size 1100,450 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'curves.png'
set multiplot layout 1,2 title "/work/rcurve/local-1k-1600: test accuracy 0.549 at the best validation step 1200"
set grid
set xlabel 'step'
set ylabel 'loss'
set key top right
plot $train using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'training loss (mean since last log)', $val using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation loss'
set ylabel 'accuracy'
set yrange [0:1]
set key bottom right
plot $train using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'training accuracy (mean since last log)', $val using 1:3 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation accuracy'
set autoscale y
unset multiplot
unset output
